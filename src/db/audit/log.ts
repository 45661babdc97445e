// The append-only audit chain (D18): each entry carries the previous entry's hash. On
// PostgreSQL record writes queue their entries and a sealer chains them after commit (D38).
import type { AUDIT_ACTIONS } from '../../records/audit-query.js'
import { sql, type CompiledQuery } from 'kysely'
import type { ChangeWatch } from '../change-watch.js'
import type { Database, Db, Row } from '../database.js'
import { canonicalJson, sha256Hex } from '../canonical.js'
import { AUDIT_CHAIN_COLUMNS } from '../../compile/audit-columns.js'
import { AUDIT_REQUEST_COLUMNS, SYSTEM_TABLES } from '../system-tables.js'
import { coalesced } from '../coalesce.js'
import { carriedInGroup } from '../group-commit.js'
import { preparedQuery } from '../prepared.js'

/** One list, which GET /auditoria?accion= validates against. */
export type AuditAction = (typeof AUDIT_ACTIONS)[number]

export interface AuditEvent {
  readonly userId: string | null
  readonly action: AuditAction
  readonly module: string | null
  readonly recordId: string | null
  readonly version: number | null
  readonly recordHash: string | null
  /** Names of the fields changed or read, never their values. */
  readonly fields: readonly string[]
  /** When the request was answered, with ms; default: when the entry is appended. */
  readonly at?: string
  /** The request this entry records (consultations and disclosures). */
  readonly address?: string | null
  readonly requestId?: string | null
  /** The justification given (`X-Motivo`). */
  readonly motivo?: string | null
  /** A disclosure's recipient. */
  readonly recipient?: string | null
  /** The ids a read returned (a list: the page's ids). */
  readonly recordIds?: readonly string[] | null
  /** Search and filter criteria; encrypted fields only as their keyed blind-index hash. */
  readonly criteria?: Readonly<Record<string, unknown>> | null
}

export interface AuditEntry {
  readonly seq: number
  readonly at: string
  readonly user_id: string | null
  readonly action: AuditAction
  readonly module: string | null
  readonly record_id: string | null
  readonly version: number | null
  readonly record_hash: string | null
  readonly fields: readonly string[]
  readonly prev_hash: string
  readonly hash: string
  // The request columns (D29), null on entries written before them: see hashAuditEntry.
  readonly address: string | null
  readonly request_id: string | null
  readonly motivo: string | null
  readonly recipient: string | null
  readonly record_ids: readonly string[] | null
  readonly criteria: Readonly<Record<string, unknown>> | null
}

/** What an entry's hash covers: the request columns may be absent (older callers, older entries). */
export type HashedAuditEntry = Omit<AuditEntry, 'hash' | RequestKey> & Partial<Pick<AuditEntry, RequestKey>>
type RequestKey = 'address' | 'request_id' | 'motivo' | 'recipient' | 'record_ids' | 'criteria'

export const GENESIS_HASH = '0'.repeat(64)

/**
 * The actions a live feed streams: the writes of module records, and what D41 does to their
 * visibility (a block takes a record out of every view, an unblock puts it back, an erasure ends it).
 */
export const RECORD_WRITE_ACTIONS = [
  'crear',
  'importar',
  'editar',
  'eliminar',
  'suprimir',
  'bloquear',
  'desbloquear',
] as const satisfies readonly AuditAction[]
const isRecordWrite = (action: AuditAction): boolean => (RECORD_WRITE_ACTIONS as readonly string[]).includes(action)

/** The PostgreSQL channel told the last seq of every record write, on commit. */
export const AUDIT_CHANNEL = 'records_audit'

const json = (value: unknown): string => JSON.stringify(value ?? null)

/** `,"key":value` when the value is not null, else nothing (see hashAuditEntry). */
const optional = (key: string, value: unknown): string =>
  value === null || value === undefined ? '' : `,"${key}":${canonicalJson(value)}`

/**
 * The hash of an entry: everything but `hash` itself, canonically. Written out key by key
 * in canonicalJson's order (a test proves the text identical to canonicalJson of the entry
 * without its null request keys).
 *
 * The request columns of D29 (address, request_id, motivo, recipient, record_ids,
 * criteria) enter the hashed text only when not null: an entry written before they existed
 * hashed a text without them, and reading it back gives NULL there, so leaving null keys out
 * rebuilds that very text and old chains still verify. A non-null value cannot be removed
 * unnoticed (the text would change), and NULL cannot be set to a value either.
 */
export function hashAuditEntry(entry: HashedAuditEntry): string {
  return sha256Hex(
    `{"action":${json(entry.action)}${optional('address', entry.address)},"at":${json(entry.at)}` +
      `${optional('criteria', entry.criteria)},"fields":${canonicalJson(entry.fields)},` +
      `"module":${json(entry.module)}${optional('motivo', entry.motivo)},"prev_hash":${json(entry.prev_hash)}` +
      `${optional('recipient', entry.recipient)},"record_hash":${json(entry.record_hash)},` +
      `"record_id":${json(entry.record_id)}${optional('record_ids', entry.record_ids)}` +
      `${optional('request_id', entry.request_id)},"seq":${json(entry.seq)},"user_id":${json(entry.user_id)},"version":${json(entry.version)}}`,
  )
}

const parsedOrNull = <T>(value: unknown): T | null =>
  value === null || value === undefined ? null : (JSON.parse(String(value)) as T)
const textOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : String(value))

export function auditEntryFromRow(row: Row): AuditEntry {
  return {
    seq: Number(row['seq']),
    at: String(row['at']),
    user_id: (row['user_id'] as string | null) ?? null,
    action: row['action'] as AuditAction,
    module: (row['module'] as string | null) ?? null,
    record_id: (row['record_id'] as string | null) ?? null,
    version: row['version'] === null || row['version'] === undefined ? null : Number(row['version']),
    record_hash: (row['record_hash'] as string | null) ?? null,
    fields: JSON.parse(String(row['fields'])) as string[],
    prev_hash: String(row['prev_hash']),
    hash: String(row['hash']),
    address: textOrNull(row['address']),
    request_id: textOrNull(row['request_id']),
    motivo: textOrNull(row['motivo']),
    recipient: textOrNull(row['recipient']),
    record_ids: parsedOrNull<string[]>(row['record_ids']),
    criteria: parsedOrNull<Record<string, unknown>>(row['criteria']),
  }
}

export interface AppendOptions {
  readonly database: Database
  /** The write transaction of the change the entries record. */
  readonly trx: Db
  readonly events: readonly AuditEvent[]
  readonly at: string
}

/** The columns of `_audit` in the order the compiled inserts bind them (and an export writes them). */
export const AUDIT_COLUMNS = [...AUDIT_CHAIN_COLUMNS, ...AUDIT_REQUEST_COLUMNS] as const
/** The columns of `_audit_pending` an entry brings (D38): all but its place in the chain. */
const PENDING_COLUMNS = AUDIT_COLUMNS.filter((c) => c !== 'seq' && c !== 'prev_hash' && c !== 'hash')
/** Largest multi-row insert: 64 rows x 17 values stays far below both drivers' parameter limits. */
const MAX_ROWS = 64
const inserts = new WeakMap<Database, Map<string, CompiledQuery>>()

/**
 * The INSERT of `rows` entries into `table`, compiled once per database, table and size:
 * a read audit flushes up to a thousand entries at a time, and building that statement
 * through the query builder cost more than hashing and storing them. Sizes are powers of two up
 * to MAX_ROWS, so at most seven statements per table exist and the driver keeps each prepared.
 */
function compiledInsert(database: Database, table: string, columns: readonly string[], rows: number): CompiledQuery {
  let bySize = inserts.get(database)
  if (bySize === undefined) inserts.set(database, (bySize = new Map()))
  const key = `${table}:${rows}`
  let compiled = bySize.get(key)
  if (compiled === undefined) {
    const placeholder: Row = Object.fromEntries(columns.map((c) => [c, null]))
    const insert = database.db.insertInto(table).values(Array.from({ length: rows }, () => placeholder))
    // A pending entry's id tells its writer whether it is sealed yet (D38).
    compiled = (table === SYSTEM_TABLES.auditPending ? insert.returning('id') : insert).compile()
    if (compiled.parameters.length !== rows * columns.length)
      throw new Error('the audit insert must bind every column of every row')
    bySize.set(key, compiled)
  }
  return compiled
}

/** The chain's tail a write of a group hands on to the next (group-commit.ts). */
const CHAIN_TAIL = Symbol('audit chain tail')

const tailQuery = preparedQuery<never>((db) =>
  db.selectFrom(SYSTEM_TABLES.audit).select(['seq', 'hash']).orderBy('seq', 'desc').limit(1),
)

/** Splits n into chunks of MAX_ROWS and then powers of two (100 = 64 + 32 + 4). */
function chunkSizes(n: number): number[] {
  const sizes: number[] = []
  let left = n
  for (let size = MAX_ROWS; size >= 1; size /= 2)
    while (left >= size) {
      sizes.push(size)
      left -= size
    }
  return sizes
}

/** An entry before it has a place in the chain: what `_audit_pending` holds (D38). */
type UnchainedEntry = Omit<AuditEntry, 'seq' | 'prev_hash' | 'hash'>

function unchained(event: AuditEvent, at: string): UnchainedEntry {
  return {
    at: event.at ?? at,
    user_id: event.userId,
    action: event.action,
    module: event.module,
    record_id: event.recordId,
    version: event.version,
    record_hash: event.recordHash,
    fields: event.fields,
    address: event.address ?? null,
    request_id: event.requestId ?? null,
    motivo: event.motivo ?? null,
    recipient: event.recipient ?? null,
    record_ids: event.recordIds ?? null,
    criteria: event.criteria ?? null,
  }
}

/** The stored value of each column of `entry` (`fields`, `record_ids` and `criteria` as JSON). */
function storedValue(entry: AuditEntry | UnchainedEntry, column: (typeof AUDIT_COLUMNS)[number]): unknown {
  switch (column) {
    case 'fields':
      return JSON.stringify(entry.fields)
    case 'record_ids':
      return entry.record_ids === null ? null : JSON.stringify(entry.record_ids)
    case 'criteria':
      return entry.criteria === null ? null : canonicalJson(entry.criteria)
    default:
      return (entry as unknown as Record<string, unknown>)[column] ?? null
  }
}

/** Inserts `entries` into `table` in chunks of the compiled sizes; the ids of pending entries. */
async function insertRows(
  database: Database,
  trx: Db,
  table: string,
  columns: readonly (typeof AUDIT_COLUMNS)[number][],
  entries: readonly (AuditEntry | UnchainedEntry)[],
): Promise<number[]> {
  const values = entries.flatMap((entry) => columns.map((column) => storedValue(entry, column)))
  const ids: number[] = []
  let offset = 0
  for (const rows of chunkSizes(entries.length)) {
    const compiled = compiledInsert(database, table, columns, rows)
    const width = rows * columns.length
    const result = await trx.executeQuery<Row>({ ...compiled, parameters: values.slice(offset, offset + width) })
    for (const row of result.rows) ids.push(Number(row['id']))
    offset += width
  }
  return ids
}

/** `entries` linked after the tail (`seq`, `hash`; none: the genesis): seq, prev_hash and hash. */
function link(entries: readonly UnchainedEntry[], tail: Row | undefined): AuditEntry[] {
  let seq = tail === undefined ? 0 : Number(tail['seq'])
  let prev = tail === undefined ? GENESIS_HASH : String(tail['hash'])
  return entries.map((entry) => {
    seq += 1
    const linked = { ...entry, seq, prev_hash: prev }
    const hash = hashAuditEntry(linked)
    prev = hash
    return { ...linked, hash }
  })
}

/** Whether the live feeds must hear of `entries` (a record write among them). */
const feedsHear = (database: Database, entries: readonly UnchainedEntry[]): boolean =>
  database.notify !== undefined && entries.some((e) => isRecordWrite(e.action))

/**
 * Chains `entries` after the current tail and inserts them; the caller holds the audit lock.
 * Returns the last seq, and sends it to the live feeds when a record write is among them.
 */
async function chain(database: Database, trx: Db, entries: readonly UnchainedEntry[]): Promise<number> {
  // In a group of record writes (D48) the tail is the entry the write before appended: read once
  // per group. The group forgets it when it undoes a write; an entry appended beside this function
  // would make the next `seq` taken already, and the insert refused (it is the only one on SQLite).
  const carried = carriedInGroup(trx)
  const tail =
    (carried?.get(CHAIN_TAIL) as Row | undefined) ?? (await trx.executeQuery(tailQuery(trx).bind({}))).rows[0]
  const chained = link(entries, tail)
  const last = chained[chained.length - 1]
  const seq = last?.seq ?? 0
  await insertRows(database, trx, SYSTEM_TABLES.audit, AUDIT_COLUMNS, chained)
  if (last !== undefined) carried?.set(CHAIN_TAIL, { seq: last.seq, hash: last.hash })
  // Live feeds of every instance wake when this commits (a NOTIFY waits for the commit).
  if (feedsHear(database, entries)) await database.notify?.(trx, AUDIT_CHANNEL, String(seq))
  return seq
}

/**
 * Appends entries after the current tail, inside the write transaction of the change they
 * record. The tail is locked first (SQLite: its write lock; PostgreSQL: an advisory lock held
 * to commit), so concurrent writers on any instance still form one chain. The lock is the
 * last one a write takes, so its holder never waits on another and no deadlock can form.
 * Rare writers use it on PostgreSQL too; record writes go through queueAudit there (D38).
 */
export async function appendAudit({ database, trx, events, at }: AppendOptions): Promise<void> {
  if (events.length === 0) return
  await database.lock(trx, 'audit')
  await chain(
    database,
    trx,
    events.map((event) => unchained(event, at)),
  )
}

/** Whether record writes queue their entries for a sealer (D38) instead of appending them. */
export const sealsAudit = (database: Database): boolean => database.dialect === 'postgres'

/**
 * The entries of a record write, inside its transaction. PostgreSQL (D38): into
 * `_audit_pending` without any lock, so writers of every instance commit side by side; the
 * writer seals after its commit (sealAudit). SQLite: appended to the chain at once.
 */
export async function queueAudit(options: AppendOptions): Promise<void> {
  if (!sealsAudit(options.database)) return appendAudit(options)
  const { database, trx, events, at } = options
  if (events.length === 0) return
  noteQueued(
    trx,
    await insertRows(
      database,
      trx,
      SYSTEM_TABLES.auditPending,
      PENDING_COLUMNS,
      events.map((event) => unchained(event, at)),
    ),
  )
}

/**
 * The stored values of `event`'s pending entry by column (D38), for a record write on PostgreSQL
 * that inserts it within a statement of its own (a create: record, version and entry in one
 * round trip); it then hands the entry's id to `noteQueued`.
 */
export function pendingEntry(event: AuditEvent, at: string): Row {
  const entry = unchained(event, at)
  return Object.fromEntries(PENDING_COLUMNS.map((column) => [column, storedValue(entry, column)]))
}

/** Columns of `_audit_pending` that a write binds (its id is generated). */
export const PENDING_ENTRY_COLUMNS: readonly string[] = PENDING_COLUMNS

/** Per write transaction, the ids of the pending entries it queued. */
const queued = new WeakMap<Db, number[]>()

/** Records that `trx` queued the pending entries `ids`. */
export function noteQueued(trx: Db, ids: readonly number[]): void {
  const mine = queued.get(trx)
  if (mine === undefined) queued.set(trx, [...ids])
  else mine.push(...ids)
}

/** The pending ids `trx` queued (ask when its work is done): what to seal after its commit. */
export const queuedBy = (trx: Db): readonly number[] => queued.get(trx) ?? []

function unchainedFromRow(row: Row): UnchainedEntry {
  const {
    seq: _seq,
    prev_hash: _prev,
    hash: _hash,
    ...entry
  } = auditEntryFromRow({
    ...row,
    seq: 0,
    prev_hash: '',
    hash: '',
  })
  return entry
}

/** Pending entries moved per seal transaction: each move holds the audit lock only briefly. */
const SEAL_BATCH = 1000

/**
 * Moves every pending entry visible now into the chain (D38), in pending-id order, in short
 * transactions under the audit lock: seq, prev_hash and hash exactly as appendAudit makes them.
 * In the same transaction it bumps the generation of every module whose writes it seals, so a
 * cache that read the generation before the write's commit recomputes once the entry is sealed.
 * Idempotent and safe from any number of instances at once. When it returns, every entry
 * committed before the call is in the chain (read-your-writes). Returns how many entries this
 * call moved. SQLite: nothing pending.
 *
 * `mine`: the pending ids of writes that committed before the call (createSealer's writers).
 * Then a seal of another instance under way is not queued behind: the call waits for it to end
 * (a shared lock, so waiters do not wait for each other) and looks whether those ids went with
 * it; it returns once they are sealed, by itself or by a seal it waited for.
 */
export async function sealAudit(database: Database, changes: ChangeWatch, mine?: readonly number[]): Promise<number> {
  if (!sealsAudit(database)) return 0
  const { db } = database
  let sealed = 0
  // Its own entries just committed, so a writers' call does not look before its first try.
  for (let look = mine === undefined; ; look = true) {
    if (look) {
      const left =
        mine === undefined
          ? await db.executeQuery(anyPendingQuery(db).bind({}))
          : await db.executeQuery(stillPendingQuery(db).bind({ ids: mine }))
      if (left.rows.length === 0) return sealed
    }
    const moved = await db.transaction().execute(async (trx) => {
      if (mine === undefined || database.tryLock === undefined) await database.lock(trx, 'audit')
      else if (!(await database.tryLock(trx, 'audit'))) return undefined
      // The pending entries with the chain's tail beside each, then one statement that chains,
      // deletes and notifies: three round trips under the lock, whatever the batch's size.
      const rows = (await trx.executeQuery(pendingQuery(trx).bind({}))).rows
      if (rows.length === 0) return 0
      const entries = rows.map(unchainedFromRow)
      const first = rows[0] as Row
      const chained = link(
        entries,
        first['tail_hash'] == null ? undefined : { seq: first['tail_seq'], hash: first['tail_hash'] },
      )
      const stored = chained.map((entry) => Object.fromEntries(AUDIT_COLUMNS.map((c) => [c, storedValue(entry, c)])))
      await trx.executeQuery(
        moveQuery(trx).bind({
          entries: JSON.stringify(stored),
          ids: rows.map((r) => Number(r['id'])),
          channel: AUDIT_CHANNEL,
          seq: String(chained[chained.length - 1]?.seq),
          notify: feedsHear(database, entries),
        }),
      )
      const modules = [...new Set(entries.flatMap((e) => (e.module === null ? [] : [e.module])))].sort()
      for (const module of modules) await changes.bump(trx, module)
      return rows.length
    })
    if (moved === undefined) {
      await database.awaitLock?.('audit')
      continue
    }
    sealed += moved
    // Fewer than a batch: everything visible under the lock moved, what committed before the call too.
    if (moved < SEAL_BATCH) return sealed
  }
}

/**
 * The seal of one instance's record writes (D38, group commit): a writer calls it after its
 * commit with the pending ids it queued, and it resolves once a seal that started after the
 * call has ended with those ids in the chain. The writers waiting meanwhile share that one
 * seal, and only one seal of the instance runs at a time; instances take the lock in turn.
 */
export function createSealer(database: Database, changes: ChangeWatch): (queued: readonly number[]) => Promise<number> {
  let waiting: number[] = []
  const seal = coalesced(() => {
    const mine = waiting
    waiting = []
    return sealAudit(database, changes, mine)
  })
  return async (queued) => {
    if (queued.length === 0) return 0
    waiting.push(...queued)
    return seal()
  }
}

const anyPendingQuery = preparedQuery<never>((db) => db.selectFrom(SYSTEM_TABLES.auditPending).select('id').limit(1))
const stillPendingQuery = preparedQuery<'ids'>((db, param) =>
  db
    .selectFrom(SYSTEM_TABLES.auditPending)
    .select('id')
    .where('id', '=', sql<number>`any(${param('ids')}::bigint[])`)
    .limit(1),
)
/** PostgreSQL (the seal runs there alone): the oldest pending entries, each with the chain's tail. */
const pendingQuery = preparedQuery<never>((db) =>
  db
    .selectFrom((eb) =>
      eb.selectFrom(SYSTEM_TABLES.auditPending).selectAll().orderBy('id').limit(SEAL_BATCH).as('pending'),
    )
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom(SYSTEM_TABLES.audit)
          .select(['seq as tail_seq', 'hash as tail_hash'])
          .orderBy('seq', 'desc')
          .limit(1)
          .as('tail'),
      (join) => join.onTrue(),
    )
    .selectAll()
    .orderBy('pending.id'),
)

/**
 * PostgreSQL: chained entries (a JSON array of stored rows, every column text but seq and
 * version, which json_populate_recordset converts) into `_audit`, their pending rows deleted and,
 * when `notify`, the live feeds told the last seq at commit; one statement.
 */
const moveQuery = preparedQuery<'entries' | 'ids' | 'channel' | 'seq' | 'notify'>((db, param) => {
  const columns = sql.join(AUDIT_COLUMNS.map((c) => sql.ref(c)))
  return db
    .with('chained', (qb) =>
      qb
        .insertInto(SYSTEM_TABLES.audit)
        .columns([...AUDIT_COLUMNS])
        .expression(
          sql`select ${columns} from json_populate_recordset(null::${sql.table(SYSTEM_TABLES.audit)}, ${param('entries')}::json)`,
        ),
    )
    .with('moved', (qb) =>
      qb.deleteFrom(SYSTEM_TABLES.auditPending).where('id', '=', sql<number>`any(${param('ids')}::bigint[])`),
    )
    .selectNoFrom(sql`pg_notify(${param('channel')}, ${param('seq')})`.as('notified'))
    .where(sql<boolean>`${param('notify')}::boolean`)
})

/** Entries written and not sealed yet (D38): what `records audit verify` reports. */
export async function pendingAuditEntries(database: Database): Promise<number> {
  const row = await database.db
    .selectFrom(SYSTEM_TABLES.auditPending)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst()
  return Number(row?.['n'] ?? 0)
}
