// Erasure (D41 `suprimir`): in one transaction, a record's values leave every place the service
// keeps them (the live row with its blind indexes, its versions, its text-search entries, its
// retention row; an account's second factors) and a tombstone and one audit entry stay, naming
// no value. After the commit the freed space is made unreadable (erasure-sql.ts).
import { formatExactTimestamp, formatTimestamp } from '../../compile/time.js'
import { META } from '../../compile/metadata.js'
import type { ModuleSpec } from '../../compile/types.js'
import { busy, isAppError, liveAccountErasure, recordNotFound, retentionHeld } from '../../errors.js'
import { resolveScope } from '../../records/scope.js'
import type { ActingUser } from '../../records/acting-user.js'
import { appendAudit } from '../audit/log.js'
import { eraseRecordFiles, removeErasedFolder } from '../files/erase.js'
import type { Db, Row } from '../database.js'
import { createReferenceChecks } from '../records/references.js'
import { recordQuery } from '../records/query.js'
import { SYSTEM_TABLES } from '../system-tables.js'
import { keyIdsIn, type RecordKeys } from '../keys/record-keys.js'
import { reclaimFreedSpace, secureSearchDeletes } from './erasure-sql.js'
import { lockRetentionRow } from './holds.js'
import {
  noteDestroyedKeys,
  retentionEvent,
  type DecisionOptions,
  type RetentionStoreOptions,
  type Tombstone,
} from './state.js'

/** The tables keyed by an account's id (D42): an erased account takes its factors along. */
const ACCOUNT_TABLES = [SYSTEM_TABLES.secondFactors, SYSTEM_TABLES.recoveryCodes] as const

/** Notes as the erased record's every data key its live row and its versions name. */
async function noteRecordKeys(
  trx: Db,
  recordKeys: Pick<RecordKeys, 'noteErased'>,
  spec: ModuleSpec,
  id: string,
): Promise<void> {
  const live = await trx.selectFrom(spec.table.name).selectAll().where(META.id, '=', id).execute()
  const versions = await trx
    .selectFrom(SYSTEM_TABLES.versions)
    .select('data')
    .where('module', '=', spec.name)
    .where('record_id', '=', id)
    .execute()
  await recordKeys.noteErased(trx, spec.name, id, keyIdsIn([...live, ...versions]))
}

const tombstoneOf = (row: Row): Tombstone => ({
  module: String(row['module']),
  id: String(row['record_id']),
  erased_at: String(row['erased_at']),
  erased_by: String(row['erased_by']),
  motivo: String(row['motivo']),
  basis: String(row['basis']),
})

/**
 * Erases one record in the caller's scope, live or deleted (404 otherwise): 409 `Registro
 * retenido` under a legal hold, 409 while live records reference it through a field that
 * restricts its deletion (D35), 409 for an account not deleted first; otherwise its tombstone.
 */
export async function eraseRecord(
  storeOptions: RetentionStoreOptions,
  spec: ModuleSpec,
  id: string,
  motivo: string,
  options: DecisionOptions,
): Promise<Tombstone> {
  const { database, timezone, clock, modules, changes, accountsModule, dataDir, recordKeys } = storeOptions
  const retention = spec.retention
  if (retention === undefined) throw recordNotFound()
  const at = clock()
  const tombstone: Tombstone = {
    module: spec.name,
    id,
    erased_at: formatTimestamp(at, timezone),
    erased_by: options.actor,
    motivo,
    basis: retention.basis,
  }
  const place = { module: spec.name, recordId: id }
  let destroyed: string[] = []
  try {
    await database.db.transaction().execute(async (trx) => {
      const hold = await lockRetentionRow(trx, database, spec, id)
      // Deleted and blocked records too: their values are still held, and erasure is what ends that.
      const row = await recordQuery(trx, spec, {
        user: options.user,
        includeDeleted: true,
        includeBlocked: true,
        dialect: database.dialect,
      })
        .select([META.id, META.deleted])
        .where(META.id, '=', id)
        .$if(database.rowLocks, (q) => q.forUpdate())
        .executeTakeFirst()
      if (row === undefined) throw recordNotFound()
      if (hold !== null) throw retentionHeld(hold)
      if (spec.name === accountsModule && row[META.deleted] === null) throw liveAccountErasure()
      await createReferenceChecks(database, modules).checkUnreferenced(trx, spec, id)
      // The data keys (D41) its stored values name, noted before the values go: SQLite destroys
      // them after the commit, or the sweep does if that fails.
      if (recordKeys !== undefined && !recordKeys.destroysInTransaction) await noteRecordKeys(trx, recordKeys, spec, id)
      await secureSearchDeletes(trx, database.dialect, spec)
      await trx.deleteFrom(spec.table.name).where(META.id, '=', id).execute()
      await trx.deleteFrom(SYSTEM_TABLES.versions).where('module', '=', spec.name).where('record_id', '=', id).execute()
      await trx
        .deleteFrom(SYSTEM_TABLES.retention)
        .where('module', '=', spec.name)
        .where('record_id', '=', id)
        .execute()
      // Its evidence files (D43): their rows and keys, on PostgreSQL their bytes.
      await eraseRecordFiles(trx, database.dialect, place)
      // Its data keys (D41): on PostgreSQL their rows go in this transaction, with the values.
      if (recordKeys?.destroysInTransaction === true) destroyed = await recordKeys.destroy(trx, spec.name, id)
      // Record ids carry their module's prefix: only an account's id can match here.
      for (const table of ACCOUNT_TABLES) await trx.deleteFrom(table).where('account_id', '=', id).execute()
      await trx
        .insertInto(SYSTEM_TABLES.tombstones)
        .values({
          module: spec.name,
          record_id: id,
          erased_at: tombstone.erased_at,
          erased_by: tombstone.erased_by,
          motivo,
          basis: tombstone.basis,
        })
        .execute()
      await appendAudit({
        database,
        trx,
        at: formatExactTimestamp(at, timezone),
        events: [retentionEvent(spec, id, 'suprimir', motivo, options)],
      })
      // Lists, totals and cached accounts drop it on every instance (D20).
      await changes.bump(trx, spec.name)
    })
  } catch (error) {
    if (isAppError(error)) throw error
    if (database.isBusy(error)) throw busy(error)
    throw error
  }
  // The erasure has committed: what follows only tidies up, and its failure must not turn a done
  // erasure into an error (a run would leave it out of its acta). SQLite: the sealed files,
  // unreadable already (their keys went with the commit), leave DATA_DIR; the freed space is
  // made unreadable, or by the next erasure or run if this one cannot.
  if (database.dialect !== 'postgres') await removeErasedFolder(dataDir, place).catch(() => undefined)
  // SQLite: the data keys (D41) leave the key database once the erasure committed (never before:
  // a record must not lose its key and stay); a crash in between leaves them to the sweep at the
  // next start or retention run, which destroys every key of a tombstoned record.
  if (recordKeys !== undefined && !recordKeys.destroysInTransaction)
    destroyed = await recordKeys.destroy(undefined, spec.name, id).catch((error: unknown) => {
      storeOptions.onKeyDestroyFailure?.({ module: spec.name, recordId: id, error })
      return []
    })
  noteDestroyedKeys(tombstone, destroyed)
  if (options.reclaim !== false) await reclaimFreedSpace(database, [spec]).catch(() => false)
  return tombstone
}

/**
 * The tombstone of an erased record of `spec`, or undefined. A role with a record scope on the
 * module sees none: the erased values that decided the scope are gone, so a tombstone could name
 * a record that was never theirs.
 */
export async function readTombstone(
  db: Db,
  spec: ModuleSpec,
  id: string,
  user: ActingUser | null,
): Promise<Tombstone | undefined> {
  if (resolveScope(spec, user, 'read') !== undefined) return undefined
  const row = await db
    .selectFrom(SYSTEM_TABLES.tombstones)
    .selectAll()
    .where('module', '=', spec.name)
    .where('record_id', '=', id)
    .executeTakeFirst()
  return row === undefined ? undefined : tombstoneOf(row)
}
