// Every read and write of module records: transactions, ids, encryption, hashes, audit.
import type { Compilable } from 'kysely'
import { formatTimestamp, formatExactTimestamp } from '../compile/time.js'
import type { AuditQuery } from '../compile/audit-query.js'
import type { ListQuery } from '../compile/list-query.js'
import { META, ROW_COLUMN } from '../compile/metadata.js'
import type { ModuleSpec } from '../compile/types.js'
import { busy, recordNotFound, uniqueConflict, versionConflict, isAppError } from '../errors.js'
import { appendAudit, auditEntryFromRow, type AuditEntry, type AuditEvent } from './audit-log.js'
import { canonicalJson } from './canonical.js'
import { generationCache, type ChangeWatch } from './change-watch.js'
import type { Database, Db, Row } from './database.js'
import { VALUE_CONVERSIONS } from './dialects/values.js'
import { SYSTEM_TABLES } from './migrate/system-tables.js'
import { prepare, type Prepared } from './prepared.js'
import type { ReadAuditLog } from './read-audit.js'
import type { RecordCodec } from './record-codec.js'
import { reserveRecordIds } from './sequences.js'

export type ApiRecord = Readonly<Record<string, unknown>>

export interface ReadOptions {
  /** Caller holds `{module}.descifrar`: encrypted fields are decrypted, else masked (D15). */
  readonly reveal: boolean
  /** Who reads: a read that reveals encrypted values is audited in their name. */
  readonly actor: string
}

export interface WriteOptions extends ReadOptions {
  /** If-Match version (D13); undefined: last write wins. */
  readonly ifMatch?: number | undefined
}

export interface BulkWriteOptions {
  readonly actor: string
  readonly batchSize?: number
  /** Called after each batch with the number of records inserted so far. */
  readonly onProgress?: (done: number) => void
}

export interface RecordStore {
  list(spec: ModuleSpec, query: ListQuery, options: ReadOptions): Promise<{ records: ApiRecord[]; total: number }>
  /** A live record; throws 404 `Registro no encontrado` otherwise (D10). */
  get(spec: ModuleSpec, id: string, options: ReadOptions): Promise<ApiRecord>
  create(spec: ModuleSpec, values: Row, options: WriteOptions): Promise<ApiRecord>
  /**
   * Creates many validated records in ONE transaction, inserted and audited in batches:
   * all of them or none (bulk import). Same ids, defaults, encryption, hashes and audit as create.
   */
  createMany(spec: ModuleSpec, values: readonly Row[], options: BulkWriteOptions): Promise<number>
  update(spec: ModuleSpec, id: string, changes: Row, options: WriteOptions): Promise<ApiRecord>
  remove(spec: ModuleSpec, id: string, options: WriteOptions): Promise<void>
  /** The audit entries of one record, deleted records included (D25). */
  history(spec: ModuleSpec, id: string): Promise<AuditEntry[]>
  /** The audit trail, newest last (D25). */
  auditTrail(query: AuditQuery): Promise<{ entries: AuditEntry[]; total: number }>
  /** Appends audit entries that belong to no record write (logins, logouts). */
  audit(events: readonly AuditEvent[]): Promise<void>
  /** Records whose stored values failed their integrity check on a read since this process started. */
  integrityFailures(): number
}

/** A record read whose encrypted values failed their check (issue #13 item 5). */
export interface IntegrityFailure {
  readonly module: string
  readonly recordId: string
  readonly version: number
  readonly fields: readonly string[]
}

export interface RecordStoreOptions {
  readonly database: Database
  readonly codec: RecordCodec
  readonly timezone: string
  readonly clock: () => Date
  readonly readAudit: ReadAuditLog
  /** Told of every write of a module, inside its transaction: caches elsewhere expire (issue #7). */
  /** Every writer passes one: a running service's caches rely on the bumps (D20). */
  readonly changes: ChangeWatch
  /** Runs inside each update's transaction, after the row is written (an account's sessions end). */
  readonly afterUpdate?: (trx: Db, spec: ModuleSpec, id: string, changes: Row, before: Row) => Promise<void>
  /** Told once per damaged record version (the service logs it at error level). */
  readonly onIntegrityFailure?: (failure: IntegrityFailure) => void
}

export function createRecordStore(options: RecordStoreOptions): RecordStore {
  const { database, codec, timezone, clock } = options
  const { db } = database
  const conversions = VALUE_CONVERSIONS[database.dialect]
  /**
   * Totals of lists, per module and filter set, until the module's next write: an exact
   * count (spec 4.4) that a large table pays once per write, not once per page (issue #7).
   */
  const totals = new Map<string, (key: string, count: () => Promise<number>) => Promise<number>>()
  function cachedTotal(spec: ModuleSpec, key: string, count: () => Promise<number>): Promise<number> {
    let cache = totals.get(spec.name)
    if (cache === undefined) totals.set(spec.name, (cache = generationCache<number>(options.changes, spec.name)))
    return cache(key, count)
  }

  /** Damaged record versions already reported by this process: each is logged and audited once. */
  const damaged = new Set<string>()
  /** Decodes a read; a value that fails its check is reported loudly but leaves the rest readable. */
  function decodeRead(spec: ModuleSpec, row: Row, { reveal, actor }: ReadOptions): ApiRecord {
    const { record, failed } = codec.decodeForRead(spec, row, reveal)
    if (failed.length === 0) return record
    const failure = { module: spec.name, recordId: String(row[META.id]), version: Number(row[META.version]), fields: failed }
    const key = `${failure.module}\u0000${failure.recordId}\u0000${failure.version}`
    if (!damaged.has(key)) {
      damaged.add(key)
      options.onIntegrityFailure?.(failure)
      void options.readAudit.record([{ userId: actor, action: 'integridad', module: spec.name, recordId: failure.recordId, version: failure.version, recordHash: null, fields: failed }])
    }
    return record
  }

  /** Audits the records whose encrypted values this read decrypts. */
  function auditReveal(spec: ModuleSpec, rows: readonly Row[], { reveal, actor }: ReadOptions): Promise<void> | undefined {
    if (!reveal) return undefined
    const encrypted = spec.encryptedFields
    if (encrypted.length === 0) return undefined
    const names = encrypted.map((f) => f.name)
    const events: AuditEvent[] = []
    for (const row of rows) {
      // Most rows hold every encrypted field: share one list of names among their entries.
      const fields = encrypted.every((f) => row[f.column] !== null && row[f.column] !== undefined) ? names
        : encrypted.filter((f) => row[f.column] !== null && row[f.column] !== undefined).map((f) => f.name)
      if (fields.length > 0)
        events.push({ userId: actor, action: 'consultar', module: spec.name, recordId: String(row[META.id]), version: Number(row[META.version]), recordHash: null, fields })
    }
    return options.readAudit.record(events)
  }

  /** Runs a write transaction, turning constraint and lock errors into client errors. */
  async function write<T>(spec: ModuleSpec, work: (trx: Db) => Promise<T>): Promise<T> {
    try {
      return await db.transaction().execute(work)
    } catch (error) {
      if (isAppError(error)) throw error
      const violated = database.uniqueViolation(error)
      if (violated !== undefined) {
        const index = spec.table.indexes.find((i) => i.name === violated)
        const field = index?.field ?? spec.fields.find((f) => f.column === violated || f.blindIndexColumn === violated)?.name
        if (field !== undefined) throw uniqueConflict(field)
      }
      if (database.isBusy(error)) throw busy(error)
      throw error
    }
  }

  /** A statement of each module, compiled on first use and then only re-bound (issue #7). */
  function perModule<P extends string>(build: (spec: ModuleSpec, param: (name: P) => string) => Compilable<Row>): (spec: ModuleSpec) => Prepared<P> {
    const compiled = new Map<ModuleSpec, Prepared<P>>()
    return (spec) => {
      let prepared = compiled.get(spec)
      if (prepared === undefined) compiled.set(spec, (prepared = prepare<P>((param) => build(spec, param))))
      return prepared
    }
  }
  const getQuery = perModule<'id'>((spec, param) =>
    db.selectFrom(spec.table.name).selectAll().where(META.id, '=', param('id')).where(META.deleted, 'is', null))
  /** INSERT of one record with every column bound (an absent value as NULL). */
  const insertQuery = perModule<string>((spec, param) => db.insertInto(spec.table.name)
    .values(Object.fromEntries(spec.table.columns.filter((c) => c.name !== ROW_COLUMN).map((c) => [c.name, param(c.name)]))))

  /** The live row; in a write, locked until commit so a concurrent update waits and then sees it (D13). */
  async function liveRow(trx: Db, spec: ModuleSpec, id: string, forWrite = false): Promise<Row> {
    const row = await trx.selectFrom(spec.table.name).selectAll().where(META.id, '=', id).where(META.deleted, 'is', null)
      .$if(forWrite && database.rowLocks, (q) => q.forUpdate()).executeTakeFirst()
    if (row === undefined) throw recordNotFound()
    return row
  }

  function checkVersion(row: Row, ifMatch: number | undefined): void {
    const current = Number(row[META.version])
    if (ifMatch !== undefined && ifMatch !== current) throw versionConflict(current)
  }

  function withDefaults(spec: ModuleSpec, values: Row, now: Date): Row {
    const out: Row = { ...values }
    for (const d of spec.defaults) {
      if (out[d.field] !== undefined && out[d.field] !== null) continue
      out[d.field] = 'literal' in d.value ? d.value.literal
        : d.value.now === 'date' ? formatTimestamp(now, timezone).slice(0, 10) : formatTimestamp(now, timezone)
    }
    return out
  }

  function changedFields(spec: ModuleSpec, before: Row, changes: Row, damaged: readonly string[]): string[] {
    return Object.keys(changes).filter((name) => {
      const field = spec.fieldsByName.get(name)
      if (field === undefined) return false
      if (field.writeOnly || damaged.includes(name)) return true
      return canonicalJson(codec.plainValue(spec, field, before)) !== canonicalJson(changes[name] ?? null)
    })
  }

  /**
   * A damaged value reads as null (issue #13 item 5); a client that sends that null back has not
   * chosen to clear it, so it is not applied (as `***` is not, D15). A new value replaces it.
   */
  function withoutDamagedNulls(spec: ModuleSpec, current: Row, changes: Row): { changes: Row; damaged: readonly string[] } {
    if (spec.encryptedFields.length === 0) return { changes, damaged: [] }
    const damaged = codec.decodeForRead(spec, current, true).failed
    if (damaged.length === 0) return { changes, damaged }
    return { changes: Object.fromEntries(Object.entries(changes).filter(([k, v]) => !(v === null && damaged.includes(k)))), damaged }
  }


  /** The one insert path of records: ids, metadata, encryption, `_hash` and 'crear' entries. */
  async function insertRecords(trx: Db, spec: ModuleSpec, prepared: readonly Row[], actor: string, now: Date): Promise<Row[]> {
    const stamp = formatTimestamp(now, timezone)
    const ids = await reserveRecordIds(trx, spec.prefix, Number(stamp.slice(0, 4)), prepared.length)
    const rows: Row[] = []
    const events: AuditEvent[] = []
    prepared.forEach((values, i) => {
      const id = ids[i] as string
      const stored: Row = {
        [META.id]: id, ...codec.encode(spec, values, id),
        [META.created]: stamp, [META.createdBy]: actor, [META.modified]: stamp, [META.modifiedBy]: actor,
        [META.version]: 1, [META.deleted]: null,
      }
      stored[META.hash] = codec.hash(spec, stored)
      rows.push(stored)
      events.push({
        userId: actor, action: 'crear', module: spec.name, recordId: id, version: 1,
        recordHash: String(stored[META.hash]), fields: Object.keys(values).filter((k) => values[k] !== null),
      })
    })
    // One statement per row keeps each under the driver's parameter limit; compiled once per module.
    const insert = insertQuery(spec)
    for (const row of rows) await trx.executeQuery(insert.bind(row))
    await options.changes.bump(trx, spec.name)
    await appendAudit({ database, trx, events, at: formatExactTimestamp(now, timezone) })
    return rows
  }

  return {
    async list(spec, query, read) {
      let base = db.selectFrom(spec.table.name).where(META.deleted, 'is', null)
      for (const filter of query.filters) {
        const field = spec.fieldsByName.get(filter.column)
        base = filter.blind
          ? base.where(filter.column, 'in', [...codec.blindIndexes(filter.value)])
          : base.where(filter.column, '=', field === undefined ? filter.value : conversions[field.storage].toDb(filter.value) as never)
      }
      const direction = query.sort.descending ? 'desc' : 'asc'
      let page = base.selectAll().orderBy(query.sort.column, direction)
      if (query.sort.column !== ROW_COLUMN) page = page.orderBy(ROW_COLUMN, 'asc')
      const count = async () => Number((await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst())?.['n'] ?? 0)
      const [rows, total] = await Promise.all([
        page.limit(query.limit).offset(query.offset).execute(),
        cachedTotal(spec, JSON.stringify(query.filters), count),
      ])
      const records = rows.map((row) => decodeRead(spec, row, read))
      await auditReveal(spec, rows, read)
      return { records, total }
    },

    async get(spec, id, read) {
      const row = (await db.executeQuery(getQuery(spec).bind({ id }))).rows[0]
      if (row === undefined) throw recordNotFound()
      const record = decodeRead(spec, row, read)
      await auditReveal(spec, [row], read)
      return record
    },

    async create(spec, values, { actor, reveal }) {
      const now = clock()
      const prepared = await codec.hashPasswords(spec, withDefaults(spec, values, now))
      const [row] = await write(spec, (trx) => insertRecords(trx, spec, [prepared], actor, now))
      return codec.decode(spec, row as Row, reveal, prepared)
    },

    async createMany(spec, values, { actor, batchSize = 500, onProgress }) {
      const now = clock()
      await write(spec, async (trx) => {
        for (let start = 0; start < values.length; start += batchSize) {
          const batch: Row[] = []
          for (const value of values.slice(start, start + batchSize)) batch.push(await codec.hashPasswords(spec, withDefaults(spec, value, now)))
          await insertRecords(trx, spec, batch, actor, now)
          onProgress?.(Math.min(start + batchSize, values.length))
        }
      })
      return values.length
    },

    async update(spec, id, changes, { actor, reveal, ifMatch }) {
      const prepared = await codec.hashPasswords(spec, changes)
      const row = await write(spec, async (trx) => {
        const now = clock()
        const stamp = formatTimestamp(now, timezone)
        const current = await liveRow(trx, spec, id, true)
        checkVersion(current, ifMatch)
        const version = Number(current[META.version]) + 1
        // Only what changes is written: a value read back is not in the form a column takes (jsonb).
        const kept = withoutDamagedNulls(spec, current, prepared)
        const columns: Row = { ...codec.encode(spec, kept.changes, id), [META.modified]: stamp, [META.modifiedBy]: actor, [META.version]: version }
        const next: Row = { ...current, ...columns }
        columns[META.hash] = next[META.hash] = codec.hash(spec, next)
        await trx.updateTable(spec.table.name).set(columns).where(META.id, '=', id).where(META.version, '=', current[META.version] as number).execute()
        await options.afterUpdate?.(trx, spec, id, changes, current)
        await options.changes.bump(trx, spec.name)
        await appendAudit({ database, trx, at: formatExactTimestamp(now, timezone), events: [{
          userId: actor, action: 'editar', module: spec.name, recordId: id, version,
          recordHash: String(next[META.hash]), fields: changedFields(spec, current, withoutDamagedNulls(spec, current, changes).changes, kept.damaged),
        }] })
        return next
      })
      const record = codec.decodeForRead(spec, row, reveal, prepared).record
      // The response discloses every stored encrypted value, not only the ones sent (issue #3).
      await auditReveal(spec, [row], { reveal, actor })
      return record
    },

    async remove(spec, id, { actor, ifMatch }) {
      await write(spec, async (trx) => {
        const now = clock()
        const stamp = formatTimestamp(now, timezone)
        const current = await liveRow(trx, spec, id, true)
        checkVersion(current, ifMatch)
        const version = Number(current[META.version]) + 1
        const next: Row = { ...current, [META.deleted]: stamp, [META.modified]: stamp, [META.modifiedBy]: actor, [META.version]: version }
        next[META.hash] = codec.hash(spec, next)
        await trx.updateTable(spec.table.name)
          .set({ [META.deleted]: stamp, [META.modified]: stamp, [META.modifiedBy]: actor, [META.version]: version, [META.hash]: next[META.hash] })
          .where(META.id, '=', id).execute()
        await options.changes.bump(trx, spec.name)
        await appendAudit({ database, trx, at: formatExactTimestamp(now, timezone), events: [{
          userId: actor, action: 'eliminar', module: spec.name, recordId: id, version, recordHash: String(next[META.hash]), fields: [],
        }] })
      })
    },

    async history(spec, id) {
      const exists = await db.selectFrom(spec.table.name).select(META.id).where(META.id, '=', id).executeTakeFirst()
      if (exists === undefined) throw recordNotFound()
      const rows = await db.selectFrom(SYSTEM_TABLES.audit).selectAll()
        .where('module', '=', spec.name).where('record_id', '=', id).orderBy('seq', 'asc').execute()
      return rows.map(auditEntryFromRow)
    },

    async auditTrail(query) {
      let base = db.selectFrom(SYSTEM_TABLES.audit)
      for (const filter of query.filters) base = base.where(filter.column, '=', filter.value)
      const [rows, count] = await Promise.all([
        base.selectAll().orderBy('seq', 'asc').limit(query.limit).offset(query.offset).execute(),
        base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
      ])
      return { entries: rows.map(auditEntryFromRow), total: Number(count?.['n'] ?? 0) }
    },

    integrityFailures: () => damaged.size,

    async audit(events) {
      const now = clock()
      try {
        await db.transaction().execute((trx) => appendAudit({ database, trx, events, at: formatExactTimestamp(now, timezone) }))
      } catch (error) {
        if (database.isBusy(error)) throw busy(error)
        throw error
      }
    },
  }
}
