// Writes of module records, each in one transaction with its audit entry (D17, D25) and the
// version it makes: create and bulk create share one insert path; update and
// remove share one change path (lock the live row, check If-Match, next version, `_hash`, audit).
// Each is a function of this file over the store's WriteContext; store.ts hands them their calls.
import { sql } from 'kysely'
import { formatTimestamp, formatExactTimestamp } from '../../compile/time.js'
import { META, ROW_COLUMN } from '../../compile/metadata.js'
import type { ModuleSpec } from '../../compile/types.js'
import { storedName } from '../../config/database-names.js'
import { busy, forbidden, recordNotFound, uniqueConflict, versionConflict, isAppError } from '../../errors.js'
import type { ActingUser } from '../../records/acting-user.js'
import { checkWritable, recordReader, shownTo, withUserDefaults } from '../../records/field-rules.js'
import { checkCreation, checkFinal, checkUpdate } from '../../records/workflow.js'
import { withoutFileFields } from '../../records/file-fields.js'
import {
  createSealer,
  noteQueued,
  pendingEntry,
  PENDING_ENTRY_COLUMNS,
  queueAudit,
  queuedBy,
  sealsAudit,
  type AuditEvent,
} from '../audit/log.js'
import { canonicalJson, newRecordSalt } from '../canonical.js'
import { checkEncryptedUnique } from './encrypted-unique.js'
import { inWriteTransaction, type GroupOptions } from '../group-commit.js'
import type { Db, Row } from '../database.js'
import type { RecordCodec } from './codec.js'
import { preparedPerModule, type Prepared } from '../prepared.js'
import { recordQuery } from './query.js'
import { checkBlockedWrite } from './blocked-records.js'
import { SYSTEM_TABLES } from '../system-tables.js'
import { storeVersions, VERSION_COLUMNS, versionRow } from './versions.js'
import { createReferenceChecks, type ReferenceChecks } from './references.js'
import type { ApiRecord, BulkWriteOptions, RecordOrigin, RecordStoreOptions, WriteOptions } from './types.js'
import { storeConsultation } from './reveal-audit.js'
import { prepareRecordIds, reserveRecordIds } from './sequences.js'

/** What an update or a removal changes in the live row: its columns and the fields named in the audit. */
interface Change {
  readonly columns: Row
  readonly fields: readonly string[]
  /** More work of the same transaction, after the row is written. */
  readonly followUp?: (trx: Db) => Promise<void>
  /** The API values written: unique encrypted ones are checked under every key. */
  readonly values?: Row
}

/** What every write of one store shares: the store's options and what it prepares once. */
export interface WriteContext extends RecordStoreOptions {
  readonly references: ReferenceChecks
  /** Chains the audit entries a committed write queued (PostgreSQL, D38). */
  readonly seal: (queued: readonly number[]) => Promise<number>
  /** INSERT of one record with every column bound (an absent value as NULL). */
  readonly insertQuery: (spec: ModuleSpec) => Prepared<string>
  /**
   * PostgreSQL (D38): a create's record, its first version and its pending audit entry in one
   * statement, one round trip where three took turns; compiled once per module. Parameters are
   * the record's columns by name and the others' as `version.<column>` and `entry.<column>`.
   */
  readonly createQuery: (spec: ModuleSpec) => Prepared<string>
}

export function writeContext(options: RecordStoreOptions): WriteContext {
  const { db } = options.database
  return {
    ...options,
    references: createReferenceChecks(options.database, options.modules),
    seal: createSealer(options.database, options.changes),
    insertQuery: preparedPerModule<string>((spec, param) =>
      db.insertInto(spec.table.name).values(bound(param, recordColumns(spec))),
    ),
    createQuery: preparedPerModule<string>((spec, param) =>
      db
        .with('version', (qb) =>
          qb.insertInto(SYSTEM_TABLES.versions).values(bound(param, VERSION_COLUMNS, 'version.')),
        )
        .with('entry', (qb) =>
          qb
            .insertInto(SYSTEM_TABLES.auditPending)
            .values(bound(param, PENDING_ENTRY_COLUMNS, 'entry.'))
            .returning('id'),
        )
        .insertInto(spec.table.name)
        .values(bound(param, recordColumns(spec)))
        .returning(sql<number>`(select id from entry)`.as('entry_id')),
    ),
  }
}

export async function create(
  context: WriteContext,
  spec: ModuleSpec,
  values: Row,
  { actor, reveal, user, hook }: WriteOptions,
): Promise<ApiRecord> {
  const { database, codec, clock, timezone } = context
  const now = clock()
  // The module's own rule first: a create has no row to lock (types.ts, WriteHook).
  if (hook !== undefined) values = hook({ action: 'crear', before: undefined, after: values }) ?? values
  // D43: a new record holds no files; a body may only send an empty list.
  values = withoutFileFields(spec, values)
  // Field rules and the creation state of the workflow.
  checkWritable(spec, user, values)
  const filled = withDefaults(spec, withUserDefaults(spec, user, values), now, timezone)
  checkCreation(spec, filled)
  const prepared = await codec.hashPasswords(spec, filled)
  await prepareRecordIds(database, spec.prefix, yearOf(now, timezone))
  // Its checks ran before the transaction: seldom refused in it, so no savepoint of its own (D49).
  const [row] = await write(context, spec, (trx) => insertRecords(context, trx, spec, [prepared], actor, now), {
    withoutSavepoint: true,
  })
  return shownTo(codec.decode(spec, row as Row, reveal, prepared), recordReader(spec, user, reveal))
}

export async function createMany(
  context: WriteContext,
  spec: ModuleSpec,
  values: readonly Row[],
  { actor, batchSize = 500, onProgress, origins = [] }: BulkWriteOptions,
): Promise<number> {
  const { database, codec, clock, timezone } = context
  const now = clock()
  await prepareRecordIds(database, spec.prefix, yearOf(now, timezone))
  await write(context, spec, async (trx) => {
    for (let start = 0; start < values.length; start += batchSize) {
      const batch: Row[] = []
      for (const value of values.slice(start, start + batchSize))
        batch.push(await codec.hashPasswords(spec, withDefaults(spec, withoutFileFields(spec, value), now, timezone)))
      // Audited as 'importar': an import may keep historical states the API would not create in.
      const kept = origins.slice(start, start + batchSize)
      await insertRecords(context, trx, spec, batch, actor, now, 'importar', kept)
      onProgress?.(Math.min(start + batchSize, values.length))
    }
  })
  return values.length
}

export async function update(
  context: WriteContext,
  spec: ModuleSpec,
  id: string,
  changes: Row,
  writeOptions: WriteOptions,
): Promise<ApiRecord> {
  const { codec, afterUpdate } = context
  // D43: file fields sent back as read are ignored (checked against the locked row below).
  const sent = changes
  changes = withoutFileFields(spec, changes, (name) => sent[name])
  checkWritable(spec, writeOptions.user, changes)
  // Passwords are hashed before the transaction (bcrypt is slow); one a hook changes, in it.
  const hashed = await codec.hashPasswords(spec, changes)
  let prepared = hashed
  const row = await changeRecord(
    context,
    spec,
    id,
    'editar',
    writeOptions,
    async (current, _stamp, adjusted, trx) => {
      withoutFileFields(spec, sent, (name) => storedFiles(codec, spec, current, name))
      // The record's data key (D41), before anything is encrypted.
      await codec.prepareKeys(trx, spec, [{ id, row: current }])
      const given = adjusted ?? changes
      if (adjusted !== undefined) {
        checkWritable(spec, writeOptions.user, adjusted)
        prepared = await rehashed(codec, spec, adjusted, changes, hashed)
      }
      const kept = withoutDamagedNulls(codec, spec, current, prepared)
      const plain = withoutDamagedNulls(codec, spec, current, given).changes
      return {
        // Values still under the service key move under the record's key with the record's next version.
        columns: { ...underRecordKey(codec, spec, current), ...codec.encode(spec, kept.changes, id) },
        fields: changedFields(codec, spec, current, plain, kept.damaged),
        values: kept.changes,
        followUp: afterUpdate === undefined ? undefined : (trx) => afterUpdate(trx, spec, id, given, current),
      }
    },
    changes,
  )
  const decoded = codec.decodeForRead(spec, row, writeOptions.reveal, prepared).record
  const record = shownTo(decoded, recordReader(spec, writeOptions.user, writeOptions.reveal))
  // The response discloses every stored encrypted value, not only the ones sent.
  await storeConsultation(context, spec, [row], writeOptions, { recordId: id, revealOnly: true })
  return record
}

export async function remove(
  context: WriteContext,
  spec: ModuleSpec,
  id: string,
  writeOptions: WriteOptions,
): Promise<void> {
  await changeRecord(context, spec, id, 'eliminar', writeOptions, (_current, stamp) => ({
    columns: { [META.deleted]: stamp },
    fields: [],
    // Refused while live records reference it; the locked row makes it race-safe.
    followUp: (trx) => context.references.checkUnreferenced(trx, spec, id),
  }))
}

/**
 * `adjusted` (a hook's values) with its passwords hashed: the hash made before the transaction
 * where the hook kept the value given, a new one where it changed it.
 */
async function rehashed(codec: RecordCodec, spec: ModuleSpec, adjusted: Row, given: Row, hashed: Row): Promise<Row> {
  const out: Row = { ...adjusted }
  const fresh: Row = {}
  for (const field of spec.fields) {
    if (!field.writeOnly || !(field.name in adjusted)) continue
    if (adjusted[field.name] === given[field.name]) out[field.name] = hashed[field.name]
    else fresh[field.name] = adjusted[field.name]
  }
  return { ...out, ...(await codec.hashPasswords(spec, fresh)) }
}

/**
 * The one place a record write ends: SQLite bumps the module's generation in the transaction
 * (D20); PostgreSQL seals the audit entries after the commit, and the seal bumps it (D38), so no
 * row or lock shared by all writers is held until a write commits.
 */
async function write<T>(
  context: WriteContext,
  spec: ModuleSpec,
  work: (trx: Db) => Promise<T>,
  group: GroupOptions = {},
): Promise<T> {
  const { database, changes, onSealError } = context
  const sealed = sealsAudit(database)
  let queued: readonly number[] = []
  const result = await transaction(
    context,
    spec,
    async (trx) => {
      const out = await work(trx)
      if (!sealed) await changes.bump(trx, spec.name)
      queued = queuedBy(trx)
      return out
    },
    group,
  )
  // Before answering: whoever reads /auditoria or /historial next finds the entry chained. A
  // failed seal does not undo a committed write: answering an error would invite a retry that
  // duplicates the record. The entry stays pending for the next seal (any write, the heartbeat).
  if (queued.length > 0)
    await context.seal(queued).catch((error: unknown) => {
      if (onSealError === undefined) throw database.isBusy(error) ? busy(error) : error
      onSealError(error)
    })
  return result
}

/**
 * The write's transaction (on SQLite shared with the writes that arrive with it, D48), its
 * constraint and lock errors turned into client errors.
 */
async function transaction<T>(
  { database }: WriteContext,
  spec: ModuleSpec,
  work: (trx: Db) => Promise<T>,
  group: GroupOptions,
): Promise<T> {
  try {
    return await inWriteTransaction(database, work, group)
  } catch (error) {
    if (isAppError(error)) throw error
    const violated = database.uniqueViolation(error)
    if (violated !== undefined) {
      // PostgreSQL names the index by its first 63 bytes (a long module and field name, say).
      const index = spec.table.indexes.find((i) => storedName(i.name) === violated)
      const field =
        index?.field ?? spec.fields.find((f) => f.column === violated || f.blindIndexColumn === violated)?.name
      if (field !== undefined) throw uniqueConflict(field)
    }
    if (database.isBusy(error)) throw busy(error)
    throw error
  }
}

/** `names` as the values of an insert, each bound to the parameter of its name after `prefix`. */
const bound = (param: (name: string) => unknown, names: readonly string[], prefix = '') =>
  Object.fromEntries(names.map((name) => [name, param(`${prefix}${name}`)]))
/** A record's columns an insert writes: every one but `_row`, which the database numbers. */
const recordColumns = (spec: ModuleSpec): string[] =>
  spec.table.columns.filter((c) => c.name !== ROW_COLUMN).map((c) => c.name)

const prefixed = (prefix: string, row: Row): Row =>
  Object.fromEntries(Object.entries(row).map(([name, value]) => [`${prefix}${name}`, value]))

/** The year of a record id: the creation's, in the service's time zone (D8). */
const yearOf = (now: Date, timezone: string): number => Number(formatTimestamp(now, timezone).slice(0, 4))

function withDefaults(spec: ModuleSpec, values: Row, now: Date, timezone: string): Row {
  const out: Row = { ...values }
  for (const d of spec.defaults) {
    if (out[d.field] !== undefined && out[d.field] !== null) continue
    out[d.field] =
      'literal' in d.value
        ? d.value.literal
        : d.value.now === 'date'
          ? formatTimestamp(now, timezone).slice(0, 10)
          : formatTimestamp(now, timezone)
  }
  return out
}

/** The one insert path of records: ids, metadata, encryption, `_hash` and 'crear' entries. */
async function insertRecords(
  context: WriteContext,
  trx: Db,
  spec: ModuleSpec,
  prepared: readonly Row[],
  actor: string,
  now: Date,
  action: 'crear' | 'importar' = 'crear',
  origins: readonly (RecordOrigin | undefined)[] = [],
): Promise<Row[]> {
  const { database, codec, timezone } = context
  const stamp = formatTimestamp(now, timezone)
  const ids = await reserveRecordIds(database, trx, spec.prefix, yearOf(now, timezone), prepared.length)
  await codec.beforeWrite(trx)
  // Each new record's data key (D41): on SQLite committed to the key database before this transaction.
  await codec.prepareKeys(
    trx,
    spec,
    ids.map((id) => ({ id })),
  )
  for (const [i, values] of prepared.entries()) await checkEncryptedUnique(trx, spec, codec, values, ids[i] as string)
  await context.references.checkTargets(trx, spec, prepared)
  const rows: Row[] = []
  const events: AuditEvent[] = []
  prepared.forEach((values, i) => {
    const id = ids[i] as string
    const origin = origins[i]
    const stored: Row = {
      [META.id]: id,
      ...codec.encode(spec, values, id),
      [META.created]: origin?.created ?? stamp,
      [META.createdBy]: origin?.createdBy ?? actor,
      [META.modified]: stamp,
      [META.modifiedBy]: actor,
      [META.version]: 1,
      [META.deleted]: null,
      [META.salt]: newRecordSalt(),
    }
    stored[META.hash] = codec.hash(spec, stored)
    rows.push(stored)
    events.push({
      userId: actor,
      action,
      module: spec.name,
      recordId: id,
      version: 1,
      recordHash: String(stored[META.hash]),
      // A kept origin is named with the fields: the entry says the file set the creation metadata.
      fields: [
        ...Object.keys(values).filter((k) => values[k] !== null),
        ...(origin === undefined ? [] : [META.created, META.createdBy]),
      ],
    })
  })
  const at = formatExactTimestamp(now, timezone)
  if (sealsAudit(database) && rows.length === 1) {
    const [row, event] = [rows[0] as Row, events[0] as AuditEvent]
    const version = prefixed('version.', versionRow(spec, codec, row))
    const entry = prefixed('entry.', pendingEntry(event, at))
    const written = await trx.executeQuery(context.createQuery(spec).bind({ ...row, ...version, ...entry }))
    noteQueued(
      trx,
      written.rows.map((r) => Number(r['entry_id'])),
    )
    return rows
  }
  // One statement per row keeps each under the driver's parameter limit; compiled once per module.
  const insert = context.insertQuery(spec)
  for (const row of rows) await trx.executeQuery(insert.bind(row))
  // Version 1 of each, values as stored.
  await storeVersions(trx, spec, codec, rows)
  await queueAudit({ database, trx, events, at })
  return rows
}

/**
 * The live row in the user's scope (else 404), locked until commit so a concurrent
 * write waits and then sees it (D13). Blocked (D41): 403 `Registro bloqueado`. Readable but
 * outside a `write_scope`: 403 naming the rule.
 */
async function lockLiveRow(
  { database }: WriteContext,
  trx: Db,
  spec: ModuleSpec,
  id: string,
  user: ActingUser | null,
): Promise<Row> {
  const row = await recordQuery(trx, spec, { user, dialect: database.dialect, includeBlocked: true })
    .selectAll()
    .where(META.id, '=', id)
    .$if(database.rowLocks, (q) => q.forUpdate())
    .executeTakeFirst()
  if (row === undefined) throw recordNotFound()
  // Blocked (D41): no edit, workflow move or delete, by anyone, until `desbloquear`.
  await checkBlockedWrite(trx, spec, id)
  if (user !== null && spec.access.get(user.role)?.writeScope !== undefined) {
    const inside = await recordQuery(trx, spec, { user, action: 'write', dialect: database.dialect })
      .select(META.id)
      .where(META.id, '=', id)
      .executeTakeFirst()
    if (inside === undefined)
      throw forbidden([
        {
          field: 'registro',
          message: `El rol '${user.role}' no puede modificar este registro (write_scope de ${spec.name})`,
        },
      ])
  }
  return row
}

/**
 * The one change path of a live record (update, remove): lock it, check If-Match (D13), write
 * `change`'s columns with the next version, `_modified*` and `_hash`, and audit it as `action`.
 */
function changeRecord(
  context: WriteContext,
  spec: ModuleSpec,
  id: string,
  action: 'editar' | 'eliminar',
  { actor, ifMatch, user, hook }: WriteOptions,
  changeOf: (current: Row, stamp: string, adjusted: Row | undefined, trx: Db) => Change | Promise<Change>,
  after?: Row,
): Promise<Row> {
  const { database, codec, clock, timezone, references } = context
  return write(context, spec, async (trx) => {
    const now = clock()
    const stamp = formatTimestamp(now, timezone)
    await codec.beforeWrite(trx)
    const current = await lockLiveRow(context, trx, spec, id, user)
    // The module's own rule decides on the row this transaction locked and writes over (types.ts).
    const adjusted = hook?.({ action, before: codec.decodeForRead(spec, current, true).record, after })
    const version = Number(current[META.version])
    if (ifMatch !== undefined && ifMatch !== version) throw versionConflict(version)
    const change = await changeOf(current, stamp, adjusted, trx)
    const { columns, fields, values } = change
    // The workflow decides on the locked row: moves, their requirements, read-only fields, final states (F9).
    const before = (name: string) => {
      const field = spec.fieldsByName.get(name)
      return field === undefined ? undefined : codec.plainValue(spec, field, current)
    }
    if (action === 'editar' && values !== undefined) checkUpdate(spec, user, before, values)
    if (action === 'eliminar') checkFinal(spec, user, before, 'eliminar')
    if (values !== undefined) {
      await checkEncryptedUnique(trx, spec, codec, values, id)
      // A reference kept as it was is not looked up again (its target may be gone under on_delete: allow).
      const changedRefs = spec.references.filter((r) => r.field in values && values[r.field] !== current[r.column])
      if (changedRefs.length > 0)
        await references.checkTargets(trx, spec, [
          Object.fromEntries(changedRefs.map((r) => [r.field, values[r.field]])),
        ])
    }
    // Only what changes is written: a value read back is not in the form a column takes (jsonb).
    const set: Row = { ...columns, [META.modified]: stamp, [META.modifiedBy]: actor, [META.version]: version + 1 }
    // A record written before salts were kept gets one with its next version (F4, D17).
    if (current[META.salt] === null || current[META.salt] === undefined) set[META.salt] = newRecordSalt()
    const next: Row = { ...current, ...set }
    set[META.hash] = next[META.hash] = codec.hash(spec, next)
    await trx.updateTable(spec.table.name).set(set).where(META.id, '=', id).where(META.version, '=', version).execute()
    // The version changed (kept now if the record predates versions) and the new one.
    await storeVersions(trx, spec, codec, [current], true)
    await storeVersions(trx, spec, codec, [next])
    await change.followUp?.(trx)
    await queueAudit({
      database,
      trx,
      at: formatExactTimestamp(now, timezone),
      events: [
        {
          userId: actor,
          action,
          module: spec.name,
          recordId: id,
          version: version + 1,
          recordHash: String(next[META.hash]),
          fields: [...fields],
        },
      ],
    })
    return next
  })
}

/**
 * D41: the columns of `current`'s values still under the service key, moved under the record's key
 * (bound by `prepareKeys`); {} for a module without record keys or a record with none left.
 */
function underRecordKey(codec: RecordCodec, spec: ModuleSpec, current: Row): Row {
  if (!codec.usesRecordKeys(spec)) return {}
  const legacy = spec.encryptedFields.some((f) => String(current[f.column] ?? '').startsWith('v1.'))
  return legacy ? codec.reencrypt(spec, current) : {}
}

/** The fields `changes` really changes (a write-only field always counts: it cannot be compared). */
function changedFields(
  codec: RecordCodec,
  spec: ModuleSpec,
  before: Row,
  changes: Row,
  damaged: readonly string[],
): string[] {
  return Object.keys(changes).filter((name) => {
    const field = spec.fieldsByName.get(name)
    if (field === undefined) return false
    if (field.writeOnly || damaged.includes(name)) return true
    return canonicalJson(codec.plainValue(spec, field, before)) !== canonicalJson(changes[name] ?? null)
  })
}

/**
 * A damaged value reads as null; a client that sends that null back has not
 * chosen to clear it, so it is not applied (as `***` is not, D15). A new value replaces it.
 */
function withoutDamagedNulls(
  codec: RecordCodec,
  spec: ModuleSpec,
  current: Row,
  changes: Row,
): { changes: Row; damaged: readonly string[] } {
  if (spec.encryptedFields.length === 0) return { changes, damaged: [] }
  const damaged = codec.decodeForRead(spec, current, true).failed
  if (damaged.length === 0) return { changes, damaged }
  return {
    changes: Object.fromEntries(Object.entries(changes).filter(([k, v]) => !(v === null && damaged.includes(k)))),
    damaged,
  }
}

/** A file field's list as the locked row holds it. */
function storedFiles(codec: RecordCodec, spec: ModuleSpec, row: Row, name: string): unknown {
  const field = spec.fieldsByName.get(name)
  return field === undefined ? undefined : codec.plainValue(spec, field, row)
}

/** D43: what an upload adds to a record: the entry its file field lists, and its own rows. */
export interface Attachment {
  readonly field: string
  /** The entry the field lists for the file numbered `n`. */
  readonly entry: (n: number) => Row
  /** In the write's transaction, after the record's row: the file's row and its custody entry. */
  readonly store: (trx: Db, n: number, version: number) => Promise<void>
}

/**
 * D43: one file added to a record's file field. An edit like any other (scope and write_scope,
 * If-Match, workflow, the record's next version, `_hash` and 'editar' entry), whose change is the
 * field's list with the new entry; its number is the list's length plus one, under the row's lock.
 */
export async function attach(
  context: WriteContext,
  spec: ModuleSpec,
  id: string,
  attachment: Attachment,
  writeOptions: WriteOptions,
): Promise<number> {
  const field = spec.fieldsByName.get(attachment.field)
  if (field === undefined || field.uploaded !== true)
    throw new Error(`${spec.name}.${attachment.field}: not a file field`)
  let n = 0
  await changeRecord(context, spec, id, 'editar', writeOptions, async (current, _stamp, _adjusted, trx) => {
    await context.codec.prepareKeys(trx, spec, [{ id, row: current }])
    const listed = context.codec.plainValue(spec, field, current)
    const files = Array.isArray(listed) ? listed : []
    n = files.length + 1
    const value = [...files, attachment.entry(n)]
    const version = Number(current[META.version]) + 1
    return {
      columns: {
        ...underRecordKey(context.codec, spec, current),
        ...context.codec.encode(spec, { [field.name]: value }, id),
      },
      fields: [field.name],
      values: { [field.name]: value },
      followUp: (trx) => attachment.store(trx, n, version),
    }
  })
  return n
}
