// Legal holds (D41 `retener`): a reference (a court file number, say) that keeps a record from
// being erased until it is lifted. Kept in the record's `_retention` row; each put and each lift
// is one audit entry with its motivo and the reference, in one transaction under the caller's
// record scope (404 outside it).
import { formatExactTimestamp, formatTimestamp } from '../../compile/time.js'
import type { ModuleSpec } from '../../compile/types.js'
import { busy, recordNotFound, retentionHoldConflict } from '../../errors.js'
import { appendAudit } from '../audit/log.js'
import type { Database, Db } from '../database.js'
import { SYSTEM_TABLES } from '../system-tables.js'
import { readClocks } from './clocks.js'
import {
  retentionEvent,
  stateOf,
  type DecisionOptions,
  type RetentionState,
  type RetentionStoreOptions,
} from './state.js'

/**
 * The record's `_retention` row, made if missing and locked until commit (PostgreSQL; SQLite's
 * write transaction holds the database): holds and erasures of one record take turns on it, so an
 * erasure never misses a hold put meanwhile, nor a hold lands on a record just erased. Its hold.
 */
export async function lockRetentionRow(trx: Db, database: Database, spec: ModuleSpec, id: string) {
  await trx
    .insertInto(SYSTEM_TABLES.retention)
    .values({ module: spec.name, record_id: id })
    .onConflict((oc) => oc.columns(['module', 'record_id']).doNothing())
    .execute()
  const row = await trx
    .selectFrom(SYSTEM_TABLES.retention)
    .select('hold_reference')
    .where('module', '=', spec.name)
    .where('record_id', '=', id)
    .$if(database.rowLocks, (q) => q.forUpdate())
    .executeTakeFirst()
  const hold = row?.['hold_reference']
  return typeof hold === 'string' ? hold : null
}

/** A hold to put (`referencia`) or to lift (null), with why. */
export interface HoldChange {
  readonly referencia: string | null
  readonly motivo: string
}

/**
 * Puts a legal hold on one record (`change.referencia`) or lifts the one it has (null): 409 when
 * the record is already held, or has no hold to lift, so that two officers learn of each other.
 */
export async function changeHold(
  { database, timezone, clock }: RetentionStoreOptions,
  spec: ModuleSpec,
  id: string,
  change: HoldChange,
  options: DecisionOptions,
): Promise<RetentionState> {
  const retention = spec.retention
  if (retention === undefined) throw recordNotFound()
  const at = clock()
  const stamp = formatTimestamp(at, timezone)
  // A deleted record (D10) too: its values are held until erased, and a hold must be able to stop that.
  const read = { database, user: options.user, id, includeDeleted: true }
  const putting = change.referencia !== null
  try {
    return await database.db.transaction().execute(async (trx) => {
      // The lock first: the record is read once any erasure of it has committed.
      await lockRetentionRow(trx, database, spec, id)
      const [record] = await readClocks(spec, { ...read, db: trx })
      if (record === undefined) throw recordNotFound()
      if ((record.hold !== null) === putting) throw retentionHoldConflict(record.hold)
      const set = { hold_reference: change.referencia }
      await trx
        .insertInto(SYSTEM_TABLES.retention)
        .values({ module: spec.name, record_id: id, ...set })
        .onConflict((oc) => oc.columns(['module', 'record_id']).doUpdateSet(set))
        .execute()
      // The reference named is the one put, or the one lifted.
      const referencia = change.referencia ?? record.hold
      await appendAudit({
        database,
        trx,
        at: formatExactTimestamp(at, timezone),
        events: [retentionEvent(spec, id, putting ? 'retener' : 'liberar', change.motivo, options, { referencia })],
      })
      return stateOf(spec, retention, { ...record, hold: change.referencia }, stamp)
    })
  } catch (error) {
    if (database.isBusy(error)) throw busy(error)
    throw error
  }
}
