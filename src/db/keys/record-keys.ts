// Per-record data keys (D41): each record of a module with `retention:` and encrypted fields has
// a random 32-byte key of its own, wrapped by the service key (a `v1` value of the keyring), and its
// encrypted values (live row and every version) are `r1.<data key id>.…` under it. Erasure
// destroys the key, so a copy of the record in an older database backup can no longer be read.
//
// Where the wrapped keys live, apart from what a database backup holds:
// - SQLite: a database file of their own beside the records' (`records.db` -> `records-keys.db`),
//   which `records backup` does not copy. A key is committed there before the record that uses it
//   (the two files never commit together: SQLite's WAL makes no transaction atomic across files),
//   so a crash leaves at most a key no value uses, never a value without its key. An erasure
//   deletes the record's keys after its own commit; a crash in between leaves keys of a
//   tombstoned record, which `sweep` (every start, every retention run) destroys.
// - PostgreSQL: the table `_record_keys` of the same database (every instance reads it), a new key
//   written in the record's own transaction (one commit holds both, or neither), an erasure's keys
//   deleted in the erasure's own transaction; the documented pg_dump leaves its data out
//   (`--exclude-table-data=_record_keys`) and the keys are dumped apart (docs/operators.md).
//
// SQLite: new keys come from a pool per module, committed to the key database in batches (one
// commit and one sync for 64 new records instead of one each), each batch before any value uses one
// of its keys, so the order above holds. A pooled key is made before its record exists: its wrap
// names its module and id, and its row keeps `record_id` empty for good (its rows are never
// rewritten but to wrap them again or to destroy them, so no copy of a wrapped key is left in the
// file's free space). Its record is the one whose values name it: an erasure writes the key ids its
// record's values name into `_record_keys_erased` (the records' database, in the erasure's
// transaction), and `destroy` and `sweep` destroy those. A crash leaves at most a batch of keys no
// value uses; closing removes them.
//
// Every query result passes through `plugin`, which loads the data keys its values name that this
// process does not hold yet, in one query per result (a page of 100 records costs at most one),
// so the codec decrypts synchronously. A key missing from the store is a destroyed one: its values
// read as unreadable (the codec's `recordKeyDestroyed`), never as garbage.
import { randomBytes } from 'node:crypto'
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely'
import { CompiledQuery, sql } from 'kysely'
import type { ModuleSpec } from '../../compile/types.js'
import { RECORD_VALUE_PREFIX, recordKeyIdOf, type FieldCipher } from '../crypto.js'
import type { Database, Db, Row } from '../database.js'
import { createSqliteDatabase } from '../dialects/sqlite.js'
import { SYSTEM_TABLES } from '../system-tables.js'
import { bindKeyStoreIdentity, refuseMissingKeyStore } from './key-store-identity.js'
import { META } from '../../compile/metadata.js'

export const RECORD_KEYS_TABLE = '_record_keys'
/** SQLite, the records' database: the data keys of erased records, until they are destroyed. */
export const ERASED_KEYS_TABLE = '_record_keys_erased'

/** The key database beside an SQLite database file (`records.db` -> `records-keys.db`). */
export function recordKeysFile(databaseFile: string): string {
  if (databaseFile === ':memory:' || databaseFile === '') return ':memory:'
  return databaseFile.endsWith('.db') ? `${databaseFile.slice(0, -3)}-keys.db` : `${databaseFile}-keys.db`
}

/** Whether a module's records get keys of their own: the ones erasure can reach, with encrypted fields. */
export const usesRecordKeys = (spec: ModuleSpec): boolean =>
  spec.retention !== undefined && spec.encryptedFields.length > 0

/**
 * `key` in memory of its own. A small Buffer (a key unwrapped from base64, one cut from random
 * bytes) is a slice of an 8 KiB slab Node shares among small Buffers, and keeps the whole slab
 * alive: a cache of 10,000 keys made one at a time between requests held up to 80 MiB that way.
 * For the keys made or read one at a time: unwrapped ones, and PostgreSQL's, made per create.
 * SQLite's pool makes 64 at once, whose slices share their slabs, and a copy of each cost
 * its creates measurably.
 */
const ownMemory = (key: Buffer): Buffer => {
  if (key.byteOffset === 0 && key.buffer.byteLength === key.length) return key
  const own = Buffer.allocUnsafeSlow(key.length)
  key.copy(own)
  return own
}

const DATA_KEY_ID = /^[0-9a-f]{16}$/
/** A version's JSON (or any text) naming data keys: `"r1.<id>.`. */
const KEY_IDS_IN_TEXT = /"r1\.([0-9a-f]{16})\./g
/**
 * How many data keys (32 bytes each, plus the map's own) and write bindings a process keeps;
 * the least recently used go first.
 */
const CACHE_LIMIT = 100_000

/** New keys committed at once, per module, when the pool runs out (SQLite). */
const POOL_BATCH = 64

/**
 * A wrapped key is bound to its id and module, and a key made for one record (PostgreSQL, and SQLite
 * before the pool) to that record: a row relabelled to another record, or moved out of the pool,
 * fails its tag.
 */
const wrapContext = (module: string, recordId: string, keyId: string): string =>
  recordId === '' ? `record-key-pool:${module}:${keyId}` : `record-key:${module}:${recordId}:${keyId}`
const wrapContextOf = (row: Row): string =>
  wrapContext(String(row['module']), String(row['record_id']), String(row['key_id']))
/**
 * What a destroyed key's row keeps in place of its wrapped key: the id stays, so that a value under
 * it is known as erased (not as altered) in a copy of the database restored later.
 */
const DESTROYED = ''

export interface RecordKeyStoreOptions {
  readonly database: Database
  /** The service keyring's cipher: wraps and unwraps the data keys. */
  readonly cipher: FieldCipher
  /** SQLite: the key database's file; by default beside the database (`recordKeysFile`). */
  readonly file?: string
  /** Off: values are written under the service key as before (bench comparison only). */
  readonly disabled?: boolean
  /**
   * A stored key row that does not unwrap (its tag fails: altered, or relabelled to another
   * record): called once per key id; its values read as unreadable, the rest as usual.
   */
  readonly onUnreadableKey?: (failure: UnreadableKey) => void
  /** Tests only: runs in `rewrap` between reading a batch and writing it (a race driven step by step). */
  readonly beforeRewrapWrite?: (keyIds: readonly string[]) => Promise<void>
}

/** A key row that does not unwrap: which one, the record it names, and why (for the log). */
export interface UnreadableKey {
  readonly keyId: string
  readonly module: string
  readonly recordId: string
  readonly error: unknown
}

export interface RecordKeys {
  /** Whether new values of `spec` go under record keys. */
  uses(spec: ModuleSpec): boolean
  /** A data key this process holds, by id; undefined when the store has none (destroyed or unknown). */
  keyOf(keyId: string): Buffer | undefined
  /** Whether the store says this data key was destroyed by an erasure (as opposed to never known). */
  isDestroyed(keyId: string): boolean
  /** Whether the store holds this data key's row but it does not unwrap (altered or relabelled). */
  isUnreadable(keyId: string): boolean
  /** The key a write of this record encrypts with, once `prepare` bound it. */
  writeKeyOf(module: string, recordId: string): { readonly id: string; readonly key: Buffer } | undefined
  /**
   * Before encoding a write of these records (inside its transaction): binds each to its key,
   * the one its stored values use, or one kept for it, or a new one (SQLite: out of a pool
   * committed to the key database first; PostgreSQL: written in `trx`).
   */
  prepare(trx: Db, spec: ModuleSpec, records: readonly { readonly id: string; readonly row?: Row }[]): Promise<void>
  /**
   * Inside an erasure's transaction, before its rows go: the data keys the record's stored values
   * name (`keyIdsIn`), for `destroy` and `sweep` to destroy after the commit (SQLite; PostgreSQL
   * destroys by record in the transaction itself and needs nothing).
   */
  noteErased(trx: Db, module: string, recordId: string, keyIds: readonly string[]): Promise<void>
  /** Loads the data keys named by these rows' values (what the plugin does for every result). */
  load(rows: readonly Row[]): Promise<void>
  /** Loads every result's data keys before the codec reads it. */
  readonly plugin: KyselyPlugin
  /**
   * Destroys a record's data keys; their ids. PostgreSQL: in the erasure's transaction (`trx`);
   * SQLite: call with `trx` undefined after the erasure committed.
   */
  destroy(trx: Db | undefined, module: string, recordId: string): Promise<string[]>
  /** Whether destroying happens inside the erasure's transaction (PostgreSQL) or after it (SQLite). */
  readonly destroysInTransaction: boolean
  /**
   * Destroys the keys left of tombstoned records (a crash or a failure between an erasure and its
   * keys); how many. An id with a row in its module's table (of `modules`) is skipped: its keys are
   * a live record's.
   */
  sweep(modules: readonly ModuleSpec[]): Promise<number>
  /** Wraps again every data key not under the active service key (a rotation); how many. */
  rewrap(): Promise<number>
  /** Every stored key row, for `records copy`. */
  exportRows(): AsyncGenerator<Row[]>
  /**
   * Writes key rows copied from another store (ignoring ids already there). PostgreSQL: in `trx`
   * when given (a copy's transaction); SQLite: in the key database, committed at once.
   */
  importRows(rows: readonly Row[], trx?: Db): Promise<void>
  /** Whether the store holds no key row at all, destroyed ones included (`records copy`'s target). */
  isEmpty(): Promise<boolean>
  /** How many data keys the store holds (destroyed ones not counted). */
  count(): Promise<number>
  /** Data keys per field key that wraps them. */
  wrapUsage(): Promise<Map<string, number>>
  /** The field key a data key is wrapped by (`records keys status`, the tests); undefined once destroyed. */
  wrappingKeyOf(keyId: string): Promise<string | undefined>
  /** Where the keys are, for messages. */
  readonly location: string
  /** Queries this process sent to read data keys (the tests count them per page). */
  lookups(): number
  close(): Promise<void>
}

async function createKeyTable(db: Db): Promise<void> {
  await db.schema
    .createTable(RECORD_KEYS_TABLE)
    .ifNotExists()
    .addColumn('key_id', 'text', (c) => c.primaryKey())
    .addColumn('module', 'text', (c) => c.notNull())
    .addColumn('record_id', 'text', (c) => c.notNull())
    .addColumn('wrapped', 'text', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex(`${RECORD_KEYS_TABLE}_record`)
    .ifNotExists()
    .on(RECORD_KEYS_TABLE)
    .columns(['module', 'record_id'])
    .execute()
}

/**
 * Adds to `out` the data key ids named in one value of a result row that `held` does not answer
 * (a page whose keys are held, the usual case, allocates nothing).
 */
function collectKeyIds(value: unknown, held: (id: string) => boolean, out: Set<string>): void {
  if (typeof value === 'string') {
    if (value.startsWith(RECORD_VALUE_PREFIX)) {
      const id = recordKeyIdOf(value)
      if (id !== undefined && !held(id) && DATA_KEY_ID.test(id)) out.add(id)
    } else if (value.length > 24 && value.includes('"r1.'))
      for (const match of value.matchAll(KEY_IDS_IN_TEXT)) if (!held(match[1] as string)) out.add(match[1] as string)
  } else if (value !== null && typeof value === 'object' && !(value instanceof Date) && !Buffer.isBuffer(value)) {
    // A version's values as PostgreSQL's jsonb hands them: one level of field values.
    for (const key in value as Row) {
      const inner = (value as Row)[key]
      if (typeof inner === 'string' && inner.startsWith(RECORD_VALUE_PREFIX)) collectKeyIds(inner, held, out)
    }
  }
}

/** Every data key id the values of these stored rows name (a live row's columns, a version's `data`). */
export function keyIdsIn(rows: readonly Row[]): string[] {
  const out = new Set<string>()
  for (const row of rows) for (const column in row) collectKeyIds(row[column], () => false, out)
  return [...out].sort()
}

/** The id of the first of these result rows (a live row, or a version) whose values name `keyId`, or ''. */
function recordNaming(rows: readonly UnknownRow[], keyId: string): string {
  for (const row of rows) {
    const recordId = row[META.id] ?? row['record_id']
    if (typeof recordId === 'string' && keyIdsIn([row]).includes(keyId)) return recordId
  }
  return ''
}

/**
 * The tombstones, 500 at a time in key order, read from the records' database (on SQLite another
 * file than the keys'). Not db/records/pages.ts: that module reads through the codec's types.
 */
async function* tombstonePages(db: Db): AsyncGenerator<Row[]> {
  let last: Row | undefined
  for (;;) {
    const after = last
    const rows = await db
      .selectFrom(SYSTEM_TABLES.tombstones)
      .select(['module', 'record_id'])
      .$if(after !== undefined, (q) =>
        q.where((eb) =>
          eb.or([
            eb('module', '>', after?.['module']),
            eb.and([eb('module', '=', after?.['module']), eb('record_id', '>', after?.['record_id'])]),
          ]),
        ),
      )
      .orderBy('module')
      .orderBy('record_id')
      .limit(500)
      .execute()
    if (rows.length > 0) yield rows
    if (rows.length < 500) return
    last = rows[rows.length - 1]
  }
}

/** Tombstone rows by module: their record ids. */
function groupByModule(rows: readonly Row[]): Map<string, string[]> {
  const out = new Map<string, string[]>()
  for (const row of rows) {
    const module = String(row['module'])
    const ids = out.get(module) ?? []
    ids.push(String(row['record_id']))
    out.set(module, ids)
  }
  return out
}

export async function openRecordKeys(options: RecordKeyStoreOptions): Promise<RecordKeys> {
  const { database, cipher } = options
  const sqlite = database.dialect === 'sqlite'
  const keyFile = options.file ?? recordKeysFile(database.location)
  const onDisk = sqlite && keyFile !== ':memory:'
  // A records database with values under record keys never opens with an empty key store (D41).
  if (onDisk) await refuseMissingKeyStore(database.db, database.location, keyFile)
  // Its pages are read only for keys this process does not hold yet (the map below holds them
  // unwrapped), and written by the pool's refills: a small page cache of its own.
  const own = sqlite ? createSqliteDatabase({ file: keyFile, cacheKiB: 2048 }) : undefined
  if (onDisk && own !== undefined)
    await bindKeyStoreIdentity(database.db, own.db, keyFile).catch(async (error: unknown) => {
      await own.close()
      throw error
    })
  /** Where the key rows are written. */
  const store: Db = own?.db ?? database.db
  /** Where they are read from outside any transaction. */
  const lookup: Db = own?.db ?? database.side ?? database.db
  // PostgreSQL: under the migration lock, as the system tables are: instances starting together
  // on one database otherwise race on CREATE TABLE IF NOT EXISTS (a duplicate in pg_class).
  if (sqlite) await createKeyTable(store)
  else
    await database.db.transaction().execute(async (trx) => {
      await database.lock(trx, 'migration')
      await createKeyTable(trx)
    })
  if (sqlite)
    await database.db.schema
      .createTable(ERASED_KEYS_TABLE)
      .ifNotExists()
      .addColumn('module', 'text', (c) => c.notNull())
      .addColumn('record_id', 'text', (c) => c.notNull())
      .addColumn('key_id', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint(`${ERASED_KEYS_TABLE}_key`, ['module', 'record_id', 'key_id'])
      .execute()

  const keys = new Map<string, Buffer>()
  /** Ids of destroyed keys met in results: the store keeps their row, its wrapped key emptied. */
  const destroyedIds = new Set<string>()
  /** Ids of key rows that did not unwrap; each reported once (onUnreadableKey). */
  const unreadableIds = new Set<string>()
  const writeKeys = new Map<string, string>()
  const refOf = (module: string, recordId: string) => `${module}\u0000${recordId}`
  /** SQLite: committed keys no record took yet, per module, with the service key that wraps each. */
  const spare = new Map<string, { readonly id: string; readonly key: Buffer; readonly wrappedBy: string }[]>()
  /** A refill in progress per module: concurrent writes wait for it instead of starting their own. */
  const refills = new Map<string, Promise<void>>()
  const spareIds = (): string[] => [...spare.values()].flat().map((k) => k.id)
  /** SQLite: records that take a pooled key at their first encrypted value (`writeKeyOf`). */
  const claimable = new Set<string>()
  const claim = (ref: string) => {
    claimable.delete(ref)
    claimable.add(ref)
    if (claimable.size > CACHE_LIMIT) claimable.delete(claimable.values().next().value as string)
  }

  // Least recently used first out, one at a time: a page being read or a record being written
  // holds the newest keys, so a full cache never drops the keys of work in hand.
  const hold = (keyId: string, key: Buffer) => {
    keys.delete(keyId)
    keys.set(keyId, key)
    if (keys.size > CACHE_LIMIT) keys.delete(keys.keys().next().value as string)
  }
  const bind = (ref: string, keyId: string) => {
    writeKeys.delete(ref)
    writeKeys.set(ref, keyId)
    if (writeKeys.size > CACHE_LIMIT) writeKeys.delete(writeKeys.keys().next().value as string)
  }
  // A plain read: the order of use is refreshed once per result by `load`, and only when loading
  // would push keys out (a result's keys must outlive the loading of the rest of its keys).
  const keyOf = (keyId: string): Buffer | undefined => keys.get(keyId)
  const unwrap = (row: Row): Buffer => {
    return ownMemory(Buffer.from(cipher.decrypt(String(row['wrapped']), wrapContextOf(row)), 'base64'))
  }
  /**
   * The key of a row, or undefined when it does not unwrap: noted, reported once, never thrown.
   * `namedBy`: the rows whose values named it, for the record a pooled key's row does not name.
   */
  const unwrapOrNote = (row: Row, namedBy: readonly UnknownRow[] = []): Buffer | undefined => {
    try {
      return unwrap(row)
    } catch (error) {
      const keyId = String(row['key_id'])
      if (!unreadableIds.has(keyId)) {
        unreadableIds.add(keyId)
        if (unreadableIds.size > CACHE_LIMIT) unreadableIds.delete(unreadableIds.values().next().value as string)
        // A pooled key's row names no record: the record whose values were being read does.
        const recordId = String(row['record_id']) || recordNaming(namedBy, keyId)
        options.onUnreadableKey?.({ keyId, module: String(row['module']), recordId, error })
      }
      return undefined
    }
  }

  let lookups = 0
  /** `namedBy`: the result rows that named these ids (for the log of a key that does not unwrap). */
  async function loadIds(ids: Iterable<string>, namedBy?: readonly UnknownRow[]): Promise<void> {
    const missing = [...ids].filter((id) => !keys.has(id))
    for (let start = 0; start < missing.length; start += 500) {
      lookups += 1
      const chunk = missing.slice(start, start + 500)
      // Compiled by hand: the first read of each record pays this query, and building it through the
      // query builder cost as much as running it (the driver keeps the statement by its text).
      const marks = chunk.map((_, i) => (sqlite ? '?' : `$${i + 1}`)).join(', ')
      const { rows } = await lookup.executeQuery<Row>(
        CompiledQuery.raw(
          `select key_id, module, record_id, wrapped from ${RECORD_KEYS_TABLE} where key_id in (${marks})`,
          chunk,
        ),
      )
      for (const row of rows) {
        const id = String(row['key_id'])
        if (row['wrapped'] === DESTROYED) {
          destroyedIds.add(id)
          if (destroyedIds.size > CACHE_LIMIT) destroyedIds.delete(destroyedIds.values().next().value as string)
        } else {
          const key = unwrapOrNote(row, namedBy)
          if (key !== undefined) hold(id, key)
        }
      }
    }
  }

  /** Whether a key id needs no query: held (a destroyed or unreadable one is asked again: it may be restored). */
  const held = (keyId: string): boolean => keys.has(keyId)

  async function load(rows: readonly UnknownRow[]): Promise<void> {
    if (rows.length === 0) return
    const missing = new Set<string>()
    for (const row of rows) for (const column in row) collectKeyIds(row[column], held, missing)
    if (missing.size === 0) return
    // Loading may push the least recently used keys out: the ones this result names go to the
    // newest end first, so none of them is lost before the codec reads the result.
    if (keys.size + missing.size > CACHE_LIMIT) {
      const named = new Set<string>()
      for (const row of rows) for (const column in row) collectKeyIds(row[column], () => false, named)
      for (const id of named) {
        const key = keys.get(id)
        if (key !== undefined) hold(id, key)
      }
    }
    await loadIds(missing, rows)
  }

  const plugin: KyselyPlugin = {
    transformQuery: (args: PluginTransformQueryArgs): RootOperationNode => args.node,
    async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      await load(args.result.rows)
      return args.result
    },
  }

  /**
   * Of these tombstoned ids of `module`, those with data keys not yet destroyed and no row in the
   * module's table: a row there is a live record (an id in use again), whose keys stay.
   */
  async function sweepable(module: string, ids: readonly string[], table: string | undefined): Promise<string[]> {
    const pending = await lookup
      .selectFrom(RECORD_KEYS_TABLE)
      .select('record_id')
      .distinct()
      .where('module', '=', module)
      .where('record_id', 'in', ids)
      .where('wrapped', '!=', DESTROYED)
      .execute()
    if (pending.length === 0) return []
    const candidates = pending.map((r) => String(r['record_id']))
    const live =
      table === undefined
        ? []
        : await database.db.selectFrom(table).select(META.id).where(META.id, 'in', candidates).execute()
    const used = new Set(live.map((r) => String(r[META.id])))
    return candidates.filter((id) => !used.has(id))
  }

  /**
   * Destroys the keys `ids` and, `byRecord`, every key made for the record; their ids. The record's
   * noted rows go once the keys are destroyed. PostgreSQL: in `trx` when given; SQLite: in the key
   * database, committed at once.
   */
  async function destroyKeys(
    trx: Db | undefined,
    module: string,
    recordId: string,
    ids: readonly string[],
    byRecord = true,
  ): Promise<string[]> {
    if (!byRecord && ids.length === 0) return []
    const target = sqlite ? store : (trx ?? store)
    const destroyed: string[] = []
    // The wrapped key is emptied, the id kept (DESTROYED): SQLite zeroes the old bytes
    // (secure_delete), PostgreSQL's VACUUM after the erasure frees the old row version.
    for (let start = 0; start === 0 || start < ids.length; start += 500) {
      const chunk = ids.slice(start, start + 500)
      const rows = await target
        .updateTable(RECORD_KEYS_TABLE)
        .set({ wrapped: DESTROYED })
        .where('wrapped', '!=', DESTROYED)
        .where((eb) =>
          eb.or([
            ...(byRecord && start === 0 ? [eb.and([eb('module', '=', module), eb('record_id', '=', recordId)])] : []),
            ...(chunk.length > 0 ? [eb('key_id', 'in', chunk)] : []),
          ]),
        )
        .returning('key_id')
        .execute()
      destroyed.push(...rows.map((r) => String(r['key_id'])))
    }
    for (const id of destroyed) {
      keys.delete(id)
      destroyedIds.add(id)
    }
    writeKeys.delete(refOf(module, recordId))
    if (sqlite && ids.length > 0)
      await database.db
        .deleteFrom(ERASED_KEYS_TABLE)
        .where('module', '=', module)
        .where('record_id', '=', recordId)
        .where('key_id', 'in', ids)
        .execute()
    // The deleted rows are zeroed (secure_delete); the WAL's copies of their pages go too.
    if (sqlite) await sql`pragma wal_checkpoint(TRUNCATE)`.execute(store).catch(() => undefined)
    return destroyed.sort()
  }

  /** A new data key and its stored row, wrapped by the active service key (`recordId` '': pooled). */
  function newKey(module: string, recordId: string): { readonly key: Buffer; readonly row: Row & { key_id: string } } {
    const bytes = randomBytes(40)
    const id = bytes.subarray(0, 8).toString('hex')
    const key = Buffer.from(bytes.subarray(8))
    const wrapped = cipher.encrypt(key.toString('base64'), wrapContext(module, recordId, id))
    return { key, row: { key_id: id, module, record_id: recordId, wrapped } }
  }

  /** Commits `count` (at least a batch) new keys of `module` to its pool. */
  async function refill(module: string, count: number): Promise<void> {
    const wrappedBy = cipher.activeKeyId
    const created = Array.from({ length: Math.max(count, POOL_BATCH) }, () => newKey(module, ''))
    // Committed before any record's transaction can use one of them: no value is ever written
    // under a key that is not stored.
    await store.transaction().execute(async (trx) => {
      for (let start = 0; start < created.length; start += 200)
        await trx
          .insertInto(RECORD_KEYS_TABLE)
          .values(created.slice(start, start + 200).map((c) => c.row))
          .execute()
    })
    const pool = spare.get(module) ?? []
    for (const { row, key } of created) pool.push({ id: row.key_id, key, wrappedBy })
    spare.set(module, pool)
  }

  /** Removes pooled keys no record took (`ids`): a key no value uses is kept by nobody. */
  async function dropKeys(ids: readonly string[]): Promise<void> {
    for (let start = 0; start < ids.length; start += 500)
      await store
        .deleteFrom(RECORD_KEYS_TABLE)
        .where('key_id', 'in', ids.slice(start, start + 500))
        .where('record_id', '=', '')
        .execute()
  }

  /**
   * Makes sure `module`'s pool holds `count` committed keys under the active service key. SQLite
   * runs one write transaction at a time, so between a write's `prepare` and its encoding no other
   * write takes them.
   */
  async function ensurePool(module: string, count: number): Promise<void> {
    for (;;) {
      const pool = spare.get(module) ?? []
      // Keys wrapped before the active service key changed (a rotation) are not handed out: a new
      // record's key is wrapped by the key new values are written under.
      const stale = pool.filter((k) => k.wrappedBy !== cipher.activeKeyId)
      if (stale.length > 0) {
        spare.set(
          module,
          pool.filter((k) => k.wrappedBy === cipher.activeKeyId),
        )
        await dropKeys(stale.map((k) => k.id))
        continue
      }
      if (pool.length >= count) return
      const running =
        refills.get(module) ??
        refill(module, count - pool.length).finally(() => {
          refills.delete(module)
        })
      refills.set(module, running)
      await running
    }
  }

  /** SQLite: the keys an erasure noted for this record (`noteErased`), from the records' database. */
  async function notedKeyIds(module: string, recordId: string): Promise<string[]> {
    if (!sqlite) return []
    const rows = await database.db
      .selectFrom(ERASED_KEYS_TABLE)
      .select('key_id')
      .where('module', '=', module)
      .where('record_id', '=', recordId)
      .execute()
    return rows.map((r) => String(r['key_id']))
  }

  const recordKeys: RecordKeys = {
    uses: (spec) => options.disabled !== true && usesRecordKeys(spec),
    keyOf,
    isDestroyed: (keyId) => destroyedIds.has(keyId),
    isUnreadable: (keyId) => unreadableIds.has(keyId),
    writeKeyOf(module, recordId) {
      const ref = refOf(module, recordId)
      let id = writeKeys.get(ref)
      // SQLite: a new record takes its pooled key at its first encrypted value, so a record with no
      // encrypted value holds no key.
      if (id === undefined && claimable.delete(ref)) {
        const next = spare.get(module)?.shift()
        if (next !== undefined) {
          hold(next.id, next.key)
          bind(ref, next.id)
          id = next.id
        }
      }
      const key = id === undefined ? undefined : keys.get(id)
      return id === undefined || key === undefined ? undefined : { id, key }
    },
    async prepare(trx, spec, records) {
      if (!recordKeys.uses(spec) || records.length === 0) return
      const pending: string[] = []
      const existing: string[] = []
      for (const { id, row } of records) {
        const ref = refOf(spec.name, id)
        // The key the record's stored values already use (loaded when the row was read).
        let used: string | undefined
        for (const field of row === undefined ? [] : spec.encryptedFields) {
          const kid = typeof row?.[field.column] === 'string' ? recordKeyIdOf(row[field.column] as string) : undefined
          if (kid !== undefined && keys.has(kid)) used = kid
        }
        if (used !== undefined) {
          bind(ref, used)
          continue
        }
        // A record this process gave a key to that no stored value names yet (a migration writes
        // the live row, then the versions): the same key.
        const bound = writeKeys.get(ref)
        if (row !== undefined && bound !== undefined && keys.has(bound)) continue
        writeKeys.delete(ref)
        if (row !== undefined) existing.push(id)
        else pending.push(id)
      }
      // A record written before (its values all empty or under the service key) may have a key kept already.
      for (let start = 0; start < existing.length; start += 500) {
        const found = await lookup
          .selectFrom(RECORD_KEYS_TABLE)
          .select(['key_id', 'module', 'record_id', 'wrapped'])
          .where('module', '=', spec.name)
          .where('record_id', 'in', existing.slice(start, start + 500))
          .where('wrapped', '!=', DESTROYED)
          .execute()
        const kept = new Set<string>()
        for (const row of found) {
          // A kept key that does not unwrap is no key to write with: the record gets a new one.
          const key = unwrapOrNote(row)
          if (key === undefined) continue
          hold(String(row['key_id']), key)
          bind(refOf(spec.name, String(row['record_id'])), String(row['key_id']))
          kept.add(String(row['record_id']))
        }
        pending.push(...existing.slice(start, start + 500).filter((id) => !kept.has(id)))
      }
      if (pending.length === 0) return
      if (sqlite) {
        await ensurePool(spec.name, pending.length)
        for (const recordId of pending) claim(refOf(spec.name, recordId))
        return
      }
      const created = pending.map((recordId) => newKey(spec.name, recordId))
      // PostgreSQL: in the record's own transaction, so the key and the values under it commit
      // together or not at all (the key store is a table of the same database).
      for (let start = 0; start < created.length; start += 200)
        await trx
          .insertInto(RECORD_KEYS_TABLE)
          .values(created.slice(start, start + 200).map((c) => c.row))
          .execute()
      created.forEach(({ row, key }, i) => {
        hold(row.key_id, ownMemory(key))
        bind(refOf(spec.name, pending[i] as string), row.key_id)
      })
    },
    async noteErased(trx, module, recordId, keyIds) {
      if (!sqlite || keyIds.length === 0) return
      for (let start = 0; start < keyIds.length; start += 200)
        await trx
          .insertInto(ERASED_KEYS_TABLE)
          .values(keyIds.slice(start, start + 200).map((keyId) => ({ module, record_id: recordId, key_id: keyId })))
          .onConflict((oc) => oc.doNothing())
          .execute()
    },
    load: (rows) => load(rows),
    plugin,
    destroysInTransaction: !sqlite,
    async destroy(trx, module, recordId) {
      // Its keys made for it (by record) and its pooled keys its erasure noted (by id).
      return destroyKeys(trx, module, recordId, await notedKeyIds(module, recordId))
    },
    async sweep(modules) {
      const tables = new Map(modules.map((m) => [m.name, m.table.name]))
      let swept = 0
      for await (const page of tombstonePages(database.db))
        for (const [module, ids] of groupByModule(page))
          for (const recordId of await sweepable(module, ids, tables.get(module)))
            swept += (await recordKeys.destroy(undefined, module, recordId)).length
      // Noted keys left (a failure between an erasure and its keys): only those ids, never by
      // record, as the id may be a live record's again.
      for (;;) {
        const noted = sqlite
          ? await database.db
              .selectFrom(ERASED_KEYS_TABLE)
              .select(['module', 'record_id', 'key_id'])
              .limit(500)
              .execute()
          : []
        if (noted.length === 0) return swept
        const byRecord = new Map<string, { module: string; recordId: string; ids: string[] }>()
        for (const r of noted) {
          const [module, recordId] = [String(r['module']), String(r['record_id'])]
          const entry = byRecord.get(refOf(module, recordId)) ?? { module, recordId, ids: [] }
          entry.ids.push(String(r['key_id']))
          byRecord.set(refOf(module, recordId), entry)
        }
        for (const { module, recordId, ids } of byRecord.values())
          swept += (await destroyKeys(undefined, module, recordId, ids, false)).length
      }
    },
    async rewrap() {
      let rewrapped = 0
      for (;;) {
        const rows = await store
          .selectFrom(RECORD_KEYS_TABLE)
          .select(['key_id', 'module', 'record_id', 'wrapped'])
          .where('wrapped', 'not like', `v1.${cipher.activeKeyId}.%`)
          .where('wrapped', '!=', DESTROYED)
          .orderBy('key_id')
          .limit(500)
          .execute()
        if (rows.length === 0) return rewrapped
        await options.beforeRewrapWrite?.(rows.map((r) => String(r['key_id'])))
        await store.transaction().execute(async (trx) => {
          for (const row of rows) {
            const id = String(row['key_id'])
            const wrapped = String(row['wrapped'])
            // Only if the row still holds what was read: an erasure that emptied it in between
            // (or another rotation) wins, and a destroyed key is never written back.
            const { numUpdatedRows } = await trx
              .updateTable(RECORD_KEYS_TABLE)
              .set({ wrapped: cipher.encrypt(cipher.decrypt(wrapped, wrapContextOf(row)), wrapContextOf(row)) })
              .where('key_id', '=', id)
              .where('wrapped', '=', wrapped)
              .executeTakeFirst()
            rewrapped += Number(numUpdatedRows)
          }
        })
      }
    },
    async *exportRows() {
      let after = ''
      for (;;) {
        const rows = await store
          .selectFrom(RECORD_KEYS_TABLE)
          .selectAll()
          .where('key_id', '>', after)
          .orderBy('key_id')
          .limit(1000)
          .execute()
        if (rows.length === 0) return
        yield rows
        after = String(rows[rows.length - 1]?.['key_id'])
      }
    },
    async importRows(rows, trx) {
      const target = sqlite ? store : (trx ?? store)
      for (let start = 0; start < rows.length; start += 200)
        await target
          .insertInto(RECORD_KEYS_TABLE)
          .values(
            rows.slice(start, start + 200).map((r) => ({
              key_id: r['key_id'],
              module: r['module'],
              record_id: r['record_id'],
              wrapped: r['wrapped'],
            })),
          )
          .onConflict((oc) => oc.column('key_id').doNothing())
          .execute()
    },
    async isEmpty() {
      const row = await store.selectFrom(RECORD_KEYS_TABLE).select('key_id').limit(1).executeTakeFirst()
      return row === undefined
    },
    async count() {
      // This process's pooled keys no record took are nobody's data key.
      const unused = spareIds()
      const row = await lookup
        .selectFrom(RECORD_KEYS_TABLE)
        .select((eb) => eb.fn.countAll().as('n'))
        .where('wrapped', '!=', DESTROYED)
        .$if(unused.length > 0, (q) => q.where('key_id', 'not in', unused))
        .executeTakeFirst()
      return Number(row?.['n'] ?? 0)
    },
    async wrapUsage() {
      const keyId = sql<string>`substr(wrapped, 4, 8)`
      const unused = spareIds()
      const notUnused = unused.length === 0 ? sql`` : sql`and key_id not in (${sql.join(unused)})`
      const { rows } = await sql<{ key_id: string; n: number | string }>`select ${keyId} as key_id, count(*) as n
        from ${sql.table(RECORD_KEYS_TABLE)} where wrapped != '' ${notUnused} group by ${keyId}`.execute(lookup)
      return new Map(rows.map((r) => [r.key_id, Number(r.n)]))
    },
    async wrappingKeyOf(keyId) {
      const row = await lookup
        .selectFrom(RECORD_KEYS_TABLE)
        .select('wrapped')
        .where('key_id', '=', keyId)
        .executeTakeFirst()
      const wrapped = row === undefined ? DESTROYED : String(row['wrapped'])
      return wrapped === DESTROYED ? undefined : wrapped.split('.')[1]
    },
    lookups: () => lookups,
    location: own?.location ?? `${database.location} (${RECORD_KEYS_TABLE})`,
    close: async () => {
      try {
        // A pooled key no record took is removed (best effort: left, it is a key no value uses).
        const unused = spareIds()
        spare.clear()
        await dropKeys(unused).catch(() => undefined)
      } finally {
        await own?.close()
      }
    },
  }
  return recordKeys
}

/** `database` with every result passing by `recordKeys`' plugin: the data keys its values name are loaded first. */
export function withRecordKeys(database: Database, recordKeys: RecordKeys): Database {
  return {
    ...database,
    db: database.db.withPlugin(recordKeys.plugin),
    async close() {
      try {
        await recordKeys.close()
      } finally {
        await database.close()
      }
    },
  }
}

/**
 * Copies every data key row of `from` into `to`, wrapped as it is (`records copy`); how many.
 * PostgreSQL target: in `trx` when given.
 */
export async function copyRecordKeys(from: RecordKeys, to: RecordKeys, trx?: Db): Promise<number> {
  let copied = 0
  for await (const rows of from.exportRows()) {
    await to.importRows(rows, trx)
    copied += rows.length
  }
  return copied
}
