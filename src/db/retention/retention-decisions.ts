// What each retention decision (D41) writes, in one transaction with its audit entry: the
// record's row of `_retention`, found under the caller's record scope first (404 outside it).
// `suprimir` is erasure.ts's.
import { formatExactTimestamp, formatTimestamp } from '../../compile/time.js'
import type { ModuleSpec } from '../../compile/types.js'
import { busy, recordNotFound, retentionBlockConflict } from '../../errors.js'
import type { RetentionDecision, RetentionDecisionBody } from '../../records/retention-request.js'
import { appendAudit } from '../audit/log.js'
import type { Row } from '../database.js'
import { SYSTEM_TABLES } from '../system-tables.js'
import { readClocks } from './clocks.js'
import { eraseRecord } from './erasure.js'
import {
  retentionEvent,
  stateOf,
  type DecisionOptions,
  type RetentionState,
  type RetentionStoreOptions,
  type Tombstone,
} from './state.js'

interface Effect {
  /** Whether the decision applies to a blocked record (desbloquear) or to one that is not (the others). */
  readonly onBlocked: boolean
  /** The columns of `_retention` it sets. */
  readonly set: (actor: string, at: string) => Row
}

const EFFECTS: Readonly<Record<Exclude<RetentionDecision, 'suprimir'>, Effect>> = {
  // The next review is counted from now.
  conservar: { onBlocked: false, set: (actor, at) => ({ reviewed_at: at, reviewed_by: actor }) },
  bloquear: { onBlocked: false, set: (actor, at) => ({ blocked_at: at, blocked_by: actor }) },
  desbloquear: { onBlocked: true, set: () => ({ blocked_at: null, blocked_by: null }) },
}

/**
 * Applies `body.decision` to one record: 404 outside the caller's scope, 409 against its block;
 * `suprimir` answers the record's tombstone (409 `Registro retenido` under a legal hold).
 */
export async function decide(
  storeOptions: RetentionStoreOptions,
  spec: ModuleSpec,
  id: string,
  body: RetentionDecisionBody,
  options: DecisionOptions,
): Promise<RetentionState | Tombstone> {
  const { database, timezone, clock, changes } = storeOptions
  const retention = spec.retention
  if (retention === undefined) throw recordNotFound()
  if (body.decision === 'suprimir') return eraseRecord(storeOptions, spec, id, body.motivo, options)
  const effect = EFFECTS[body.decision]
  const at = clock()
  const stamp = formatTimestamp(at, timezone)
  const read = { database, user: options.user, id }
  try {
    return await database.db.transaction().execute(async (trx) => {
      const [record] = await readClocks(spec, { ...read, db: trx })
      if (record === undefined) throw recordNotFound()
      if ((record.blockedAt !== null) !== effect.onBlocked)
        throw retentionBlockConflict(record.blockedAt !== null, body.decision)
      const set = effect.set(options.actor, stamp)
      await trx
        .insertInto(SYSTEM_TABLES.retention)
        .values({ module: spec.name, record_id: id, ...set })
        .onConflict((oc) => oc.columns(['module', 'record_id']).doUpdateSet(set))
        .execute()
      // A block takes the record out of every list, its lift puts it back: cached totals expire (D41).
      if (body.decision !== 'conservar') await changes.bump(trx, spec.name)
      await appendAudit({
        database,
        trx,
        at: formatExactTimestamp(at, timezone),
        events: [retentionEvent(spec, id, body.decision, body.motivo, options)],
      })
      const [after] = await readClocks(spec, { ...read, db: trx })
      return stateOf(spec, retention, after ?? record, stamp)
    })
  } catch (error) {
    if (database.isBusy(error)) throw busy(error)
    throw error
  }
}
