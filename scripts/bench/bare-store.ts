// The bare stack's data access: the same five statements on better-sqlite3
// (BENCH_DB, inserts into their own file BENCH_BARE_DB, the service's pragmas) or on `pg`
// (BENCH_DATABASE_URL, a Pool of BENCH_POOL_SIZE connections like the service's
// DATABASE_POOL_SIZE, named prepared statements, inserts into their own table). Nothing else.
import BetterSqlite3 from 'better-sqlite3'
import pg from 'pg'
import { postgresSettings, sqliteSettings, type Durability } from './durability.js'
import { readEveryConnection } from './every-connection.js'

export type Row = Record<string, unknown>
export interface Filter {
  readonly estado: string
  readonly prioridad: string
}
export interface Account {
  readonly _id: string
  readonly password: string
}

export interface BareStore {
  getOne(id: string): Promise<Row | undefined>
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
} as const
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
  return {
    async getOne(id) {
      return getOne.get(id) as Row | undefined
    },
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
  const run = async (name: keyof typeof SQL, values: readonly unknown[]): Promise<Row[]> =>
    (await pool.query({ name, text: SQL[name], values: [...values] })).rows as Row[]
  return {
    async getOne(id) {
      return (await run('getOne', [id]))[0]
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
