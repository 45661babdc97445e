// The bare stack's data access: the same five statements on better-sqlite3
// (BENCH_DB, inserts into their own file BENCH_BARE_DB, the service's pragmas) or on `pg`
// (BENCH_DATABASE_URL, a Pool of BENCH_POOL_SIZE connections like the service's
// DATABASE_POOL_SIZE, named prepared statements, inserts into their own table); and for the
// same-work GET (scripts/bench/same-work.ts) the caller's account and token as they stand and
// the consultation log's appends. Nothing else.
import { createHash } from 'node:crypto'
import { Worker } from 'node:worker_threads'
import BetterSqlite3 from 'better-sqlite3'
import pg from 'pg'
import { postgresSettings, sqliteSettings, type Durability } from './durability.js'
import { readEveryConnection } from './every-connection.js'
import { chain, consultationValues, CONSULTATIONS_TABLE, type Consultation } from './same-work.js'

export type Row = Record<string, unknown>
export interface Filter {
  readonly estado: string
  readonly prioridad: string
}
export interface Account {
  readonly _id: string
  readonly password: string
}

/** The account behind a token and the token itself, as they stand now (D20). */
export interface CallerState {
  readonly role: string
  readonly active: boolean
  readonly sessionVersion: number
  readonly revoked: boolean
}

export interface BareStore {
  getOne(id: string): Promise<Row | undefined>
  /**
   * The same-work GET: the caller's state (undefined: no live account) and the live row.
   * SQLite: the caller from memory while no other connection committed to the database
   * (`pragma data_version`), then the row; PostgreSQL: both in one statement, one round trip.
   */
  getWithCaller(id: string, accountId: string, jti: string): Promise<{ caller?: CallerState; row?: Row }>
  /**
   * The same-work list page (S2f): the caller as getWithCaller reads it (undefined: nothing
   * returned), then `limit` live rows from `offset` in `_row` order with only `columns`, through the
   * live rows' index as the service's plain page reads them, and the count of live rows. SQLite
   * keeps the count while no other connection committed, as the service keeps its totals per
   * generation; PostgreSQL reads the caller, the page and the count side by side.
   */
  pageWithCaller(
    columns: readonly string[],
    limit: number,
    offset: number,
    accountId: string,
    jti: string,
  ): Promise<{ caller?: CallerState; rows?: Row[]; total?: number }>
  /** Chains and appends consultation entries (SQLite: in a worker thread with its own connection). */
  appendConsultations(entries: readonly Consultation[]): Promise<void>
  /** One page in `_row` order and the count of the same set. */
  page(limit: number, offset: number, filter: Filter | undefined): Promise<{ rows: Row[]; total: number }>
  insert(id: string, data: string, sealed: readonly (string | null)[]): Promise<void>
  account(username: string): Promise<Account | undefined>
  /** The wrapped data keys (D41) of these key ids: `_record_keys` (SQLite: in its own file beside BENCH_DB). */
  recordKeys(keyIds: readonly string[]): Promise<Row[]>
  /** What its own connections answer (D45): SQLite's two (reads, writes), or every pooled one. */
  settings(): Promise<Durability>
  close(): Promise<void>
}

const SQL = {
  getOne: 'select * from denuncias where _id = $1 and _deleted is null',
  page: 'select * from denuncias where _deleted is null order by _row limit $1 offset $2',
  count: 'select count(*)::int as n from denuncias where _deleted is null',
  filteredPage:
    'select * from denuncias where _deleted is null and estado = $1 and prioridad = $2 order by _row limit $3 offset $4',
  filteredCount: 'select count(*)::int as n from denuncias where _deleted is null and estado = $1 and prioridad = $2',
  insert:
    'insert into bare_denuncias (_id, data, denunciante_dni, denunciante_telefono, denunciante_domicilio) values ($1, $2, $3, $4, $5)',
  account: 'select _id, password from usuarios where username = $1 and _deleted is null',
  recordKeys: 'select key_id, module, record_id, wrapped from _record_keys where key_id = any($1)',
  // As `count`, through the live rows' index the same-work page walks.
  liveCount: "select count(*)::int as n from denuncias where _deleted is null and _id <> ''",
  caller:
    'select u.rol as role, u.activo as active, (select version from _account_sessions where account_id = $1) as sv, (select count(*) from _revoked_tokens where jti = $2) as revoked from usuarios u where u._id = $3 and u._deleted is null',
} as const
const CALLER_COLUMNS = ['role', 'active', 'sv', 'revoked'] as const
/** A statement name for a column list (its `join(',')`). */
const pageName = (list: string): string => createHash('sha256').update(list).digest('hex').slice(0, 16)
/** What a column of the bench's queries may be called: nothing SQL could read otherwise. */
export const isColumnName = (name: string): boolean => /^[a-z_][a-z0-9_]*$/.test(name)
/** Column lists whose page statement a store keeps (S2f asks one). */
const PAGE_SHAPES = 8
/** A page of `columns` over the live rows' index (`_id <> ''` names it, as in the service's plain page). */
const livePage = (columns: readonly string[]): string => {
  for (const column of columns) if (!isColumnName(column)) throw new Error(`not a column: ${column}`)
  return `select ${columns.map((c) => `"${c}"`).join(', ')} from denuncias where _deleted is null and _id <> '' order by _row limit $1 offset $2`
}
/** An absent `activo` is the field's default, true; SQLite stores booleans as 0 and 1. */
const callerOf = (row: Row): CallerState => ({
  role: String(row['role']),
  active: row['active'] === null || row['active'] === true || row['active'] === 1,
  sessionVersion: Number(row['sv'] ?? 0),
  revoked: Number(row['revoked']) > 0,
})
const INSERT_CONSULTATION =
  'insert into bare_consultations (at, user_id, module, record_id, version, fields, address, request_id, prev_hash, hash) values '
const CREATE = (rowColumn: string) =>
  `create table if not exists bare_denuncias (_row ${rowColumn}, _id text not null, data text not null, denunciante_dni text, denunciante_telefono text, denunciante_domicilio text)`

function sqliteStore(file: string, writesFile: string): BareStore {
  const open = (path: string) => {
    const db = new BetterSqlite3(path)
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = FULL')
    db.pragma('busy_timeout = 5000')
    return db
  }
  const db = open(file)
  const writes = open(writesFile)
  writes.exec(CREATE('integer primary key'))
  // The same statements with `?` for `$n` (each takes its parameters in order) and no cast.
  const prepare = (text: string) => db.prepare(text.replace(/\$\d+/g, '?').replace('::int', ''))
  const getOne = prepare(SQL.getOne)
  const page = prepare(SQL.page)
  const count = prepare(SQL.count)
  const filteredPage = prepare(SQL.filteredPage)
  const filteredCount = prepare(SQL.filteredCount)
  const account = prepare(SQL.account)
  const insert = writes.prepare(SQL.insert.replace(/\$\d+/g, '?'))
  // The service's key database beside its database file (records.db -> records-keys.db).
  const keys = open(file.endsWith('.db') ? `${file.slice(0, -3)}-keys.db` : `${file}-keys.db`)
  const caller = prepare(SQL.caller)
  const dataVersion = db.prepare('pragma data_version').pluck()
  const callers = new Map<string, CallerState | undefined>()
  let seenVersion: unknown
  const pages = new Map<string, BetterSqlite3.Statement>()
  const liveCountStatement = prepare(SQL.liveCount)
  /** The live rows' count while `seenVersion` stands. */
  let liveCount: number | undefined
  /** The caller from memory while no other connection committed (the count forgotten with it). */
  const callerAsItStands = (accountId: string, jti: string): CallerState | undefined => {
    const version = dataVersion.get()
    if (version !== seenVersion) {
      callers.clear()
      liveCount = undefined
      seenVersion = version
    }
    const key = `${accountId}\n${jti}`
    let state = callers.get(key)
    if (state === undefined && !callers.has(key)) {
      const row = caller.get(accountId, jti, accountId) as Row | undefined
      callers.set(key, (state = row === undefined ? undefined : callerOf(row)))
    }
    return state
  }
  const consultations = consultationWorker(writesFile)
  return {
    async getOne(id) {
      return getOne.get(id) as Row | undefined
    },
    async getWithCaller(id, accountId, jti) {
      const state = callerAsItStands(accountId, jti)
      if (state === undefined) return {}
      const row = getOne.get(id) as Row | undefined
      return row === undefined ? { caller: state } : { caller: state, row }
    },
    async pageWithCaller(columns, limit, offset, accountId, jti) {
      const state = callerAsItStands(accountId, jti)
      if (state === undefined) return {}
      const key = columns.join(',')
      let statement = pages.get(key)
      if (statement === undefined) {
        if (pages.size >= PAGE_SHAPES) pages.clear()
        pages.set(key, (statement = prepare(livePage(columns))))
      }
      const rows = statement.all(limit, offset) as Row[]
      liveCount ??= (liveCountStatement.get() as { n: number }).n
      return { caller: state, rows, total: liveCount }
    },
    appendConsultations: consultations.append,
    async page(limit, offset, filter) {
      const rows = (
        filter === undefined
          ? page.all(limit, offset)
          : filteredPage.all(filter.estado, filter.prioridad, limit, offset)
      ) as Row[]
      const total = (filter === undefined ? count.get() : filteredCount.get(filter.estado, filter.prioridad)) as {
        n: number
      }
      return { rows, total: total.n }
    },
    async insert(id, data, sealed) {
      insert.run(id, data, ...sealed)
    },
    async account(username) {
      return account.get(username) as Account | undefined
    },
    async recordKeys(keyIds) {
      if (keyIds.length === 0) return []
      const marks = keyIds.map(() => '?').join(', ')
      return keys
        .prepare(`select key_id, module, record_id, wrapped from _record_keys where key_id in (${marks})`)
        .all(...keyIds) as Row[]
    },
    async settings() {
      return {
        connections: [db, writes].map((c) =>
          sqliteSettings(c.pragma('journal_mode', { simple: true }), c.pragma('synchronous', { simple: true })),
        ),
      }
    },
    async close() {
      await consultations.close()
      db.close()
      writes.close()
      keys.close()
    },
  }
}

async function postgresStore(url: string, poolSize: number): Promise<BareStore> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize })
  pool.on('error', () => undefined)
  await pool.query(CREATE('bigserial primary key'))
  await pool.query(CONSULTATIONS_TABLE('bigserial primary key'))
  // One process writes the bench's consultation log: the chain's tail is kept here.
  let tail = ''
  /** The same-work page's statement per column list, named and written once. */
  const pages = new Map<string, { readonly name: string; readonly text: string }>()
  const withCaller = `select c.*, d.* from (${SQL.caller}) c left join denuncias d on d._id = $4 and d._deleted is null`
  const run = async (name: keyof typeof SQL, values: readonly unknown[]): Promise<Row[]> =>
    (await pool.query({ name, text: SQL[name], values: [...values] })).rows as Row[]
  return {
    async getOne(id) {
      return (await run('getOne', [id]))[0]
    },
    async getWithCaller(id, accountId, jti) {
      const [found] = (
        await pool.query({ name: 'withCaller', text: withCaller, values: [accountId, jti, accountId, id] })
      ).rows as Row[]
      if (found === undefined) return {}
      const state = callerOf(found)
      if (found['_id'] === null) return { caller: state }
      for (const column of CALLER_COLUMNS) delete found[column]
      return { caller: state, row: found }
    },
    async pageWithCaller(columns, limit, offset, accountId, jti) {
      const key = columns.join(',')
      let statement = pages.get(key)
      if (statement === undefined) {
        if (pages.size >= PAGE_SHAPES) pages.clear()
        // PostgreSQL reads a statement's name up to 63 bytes: the list's hash keeps two lists apart.
        pages.set(key, (statement = { name: `page:${pageName(key)}`, text: livePage(columns) }))
      }
      const [[found], rows, [count]] = await Promise.all([
        run('caller', [accountId, jti, accountId]),
        pool.query({ ...statement, values: [limit, offset] }),
        run('liveCount', []),
      ])
      if (found === undefined) return {}
      // `_version` is a bigint, which pg hands over as text: a number, as the service answers it.
      const page = rows.rows as Row[]
      for (const row of page) if (row['_version'] !== undefined) row['_version'] = Number(row['_version'])
      return { caller: callerOf(found), rows: page, total: Number(count?.['n']) }
    },
    async appendConsultations(entries) {
      const chained = chain(tail, entries)
      const values = chained.flatMap(consultationValues)
      const rows = chained.map((_, i) => `(${Array.from({ length: 10 }, (_, k) => `$${i * 10 + k + 1}`).join(', ')})`)
      await pool.query(INSERT_CONSULTATION + rows.join(', '), values)
      tail = chained.at(-1)?.hash ?? tail
    },
    async page(limit, offset, filter) {
      const [rows, total] = await Promise.all(
        filter === undefined
          ? [run('page', [limit, offset]), run('count', [])]
          : [
              run('filteredPage', [filter.estado, filter.prioridad, limit, offset]),
              run('filteredCount', [filter.estado, filter.prioridad]),
            ],
      )
      return { rows, total: Number(total[0]?.['n']) }
    },
    async insert(id, data, sealed) {
      await run('insert', [id, data, ...sealed])
    },
    async account(username) {
      return (await run('account', [username]))[0] as Account | undefined
    },
    async recordKeys(keyIds) {
      return keyIds.length === 0 ? [] : run('recordKeys', [keyIds])
    },
    async settings() {
      const read = await readEveryConnection<{ pid: number; value: string }>(poolSize, async (work) => {
        const client = await pool.connect()
        try {
          return await work(
            async () =>
              (
                await client.query<{ pid: number; value: string }>(
                  "select pg_backend_pid() as pid, current_setting('synchronous_commit') as value",
                )
              ).rows[0] as { pid: number; value: string },
          )
        } finally {
          client.release()
        }
      })
      return { connections: [...new Map(read.map((r) => [r.pid, postgresSettings(r.value)])).values()] }
    },
    close: () => pool.end(),
  }
}

/** SQLite's consultation writer: a worker thread with its own connection to `file`, started on first use. */
function consultationWorker(file: string) {
  let worker: Worker | undefined
  let nextId = 0
  const waiting = new Map<number, { resolve: () => void; reject: (error: Error) => void }>()
  const start = () => {
    // From dist in the bench; from the sources under the test's loaders (test/integration/db/bench-bare-store.test.ts).
    const script = `./bare-consultation-worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`
    const started = new Worker(new URL(script, import.meta.url), { workerData: { file } })
    started.on('message', ({ id, error }: { id: number; error?: string }) => {
      const pending = waiting.get(id)
      waiting.delete(id)
      if (error === undefined) pending?.resolve()
      else pending?.reject(new Error(error))
    })
    started.on('error', (error) => {
      for (const { reject } of waiting.values()) reject(error)
      waiting.clear()
    })
    return started
  }
  return {
    append: (entries: readonly Consultation[]) =>
      new Promise<void>((resolve, reject) => {
        const id = ++nextId
        waiting.set(id, { resolve, reject })
        ;(worker ??= start()).postMessage({ id, entries })
      }),
    close: async () => void (await worker?.terminate()),
  }
}

/** The store the environment names: BENCH_DATABASE_URL (PostgreSQL) or BENCH_DB (SQLite). */
export async function openBareStore(
  env: (name: string) => string,
  optional: (name: string) => string | undefined,
): Promise<BareStore> {
  const url = optional('BENCH_DATABASE_URL')
  return url === undefined
    ? sqliteStore(env('BENCH_DB'), env('BENCH_BARE_DB'))
    : postgresStore(url, Number(optional('BENCH_POOL_SIZE') ?? 10))
}
