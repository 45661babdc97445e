// The retention queue and its decisions (D41), over the records a caller may see: the one place
// that decides access to them (the record scope of records/query.ts), so the routes, the command
// line and any path to come inherit it.
import { formatExactTimestamp, formatTimestamp } from '../../compile/time.js'
import type { ModuleSpec } from '../../compile/types.js'
import { busy, recordNotFound } from '../../errors.js'
import type { ActingUser } from '../../records/acting-user.js'
import { addDuration, dueOf, nextDueOf, type DueReason } from '../../records/retention-due.js'
import type { RetentionDecisionBody } from '../../records/retention-request.js'
import { appendAudit } from '../audit/log.js'
import type { Database } from '../database.js'
import type { RequestContext } from '../records/types.js'
import { SYSTEM_TABLES } from '../system-tables.js'
import { readClocks, type RecordClock } from './clocks.js'

/** One due record of the queue (D41); `hold` is the legal hold's reference, to come: null. */
export interface DueRecord {
  readonly module: string
  readonly id: string
  readonly due_since: string
  readonly reason: DueReason
  readonly hold: string | null
}

/** A record's retention state, as a decision answers it. */
export interface RetentionState {
  readonly module: string
  readonly id: string
  /** Where its clock starts; null: not started (an empty date, or not in the state yet). */
  readonly from: string | null
  readonly reviewed_at: string | null
  readonly reviewed_by: string | null
  /** When it next falls due if nothing is decided; null: its clock has not started. */
  readonly next_due: string | null
  /** `from + keep_at_most`; null when the module sets no longest keep. */
  readonly keep_until: string | null
  /** Still due (a longest keep passed is not lifted by a review): since when and why. */
  readonly due_since: string | null
  readonly reason: DueReason | null
  readonly hold: string | null
}

export interface RetentionStoreOptions {
  readonly database: Database
  readonly timezone: string
  readonly clock: () => Date
}

export interface DecisionOptions {
  /** Whose record scope applies; null: none (the command line's operator). */
  readonly user: ActingUser | null
  /** Who decides, as audit entries name them. */
  readonly actor: string
  readonly request?: RequestContext
}

export interface RetentionStore {
  /** The due records of `modules` that `user` may see, the longest due first, and their total. */
  queue(
    modules: readonly ModuleSpec[],
    user: ActingUser | null,
    page?: { readonly limit: number; readonly offset: number },
  ): Promise<{ entries: DueRecord[]; total: number }>
  /** Applies a decision on one record in the caller's scope (404 otherwise), audited with its motivo. */
  decide(spec: ModuleSpec, id: string, body: RetentionDecisionBody, options: DecisionOptions): Promise<RetentionState>
}

function stateOf(spec: ModuleSpec, clock: RecordClock, now: string): RetentionState {
  const retention = spec.retention!
  const due = dueOf(retention, { ...clock, now })
  return {
    module: spec.name,
    id: clock.id,
    from: clock.from,
    reviewed_at: clock.lastReview,
    reviewed_by: clock.reviewedBy,
    next_due: nextDueOf(retention, clock),
    keep_until:
      clock.from === null || retention.keepAtMost === undefined ? null : addDuration(clock.from, retention.keepAtMost),
    due_since: due?.since ?? null,
    reason: due?.reason ?? null,
    hold: null,
  }
}

export function createRetentionStore({ database, timezone, clock }: RetentionStoreOptions): RetentionStore {
  return {
    async queue(modules, user, page) {
      const now = formatTimestamp(clock(), timezone)
      const entries: DueRecord[] = []
      for (const spec of modules) {
        if (spec.retention === undefined) continue
        for (const record of await readClocks(spec, { database, db: database.db, user })) {
          const due = dueOf(spec.retention, { ...record, now })
          if (due !== undefined)
            entries.push({ module: spec.name, id: record.id, due_since: due.since, reason: due.reason, hold: null })
        }
      }
      entries.sort(
        (a, b) =>
          a.due_since.localeCompare(b.due_since) || a.module.localeCompare(b.module) || a.id.localeCompare(b.id),
      )
      const shown = page === undefined ? entries : entries.slice(page.offset, page.offset + page.limit)
      return { entries: shown, total: entries.length }
    },

    async decide(spec, id, body, options) {
      if (spec.retention === undefined) throw recordNotFound()
      const at = clock()
      const reviewedAt = formatTimestamp(at, timezone)
      try {
        return await database.db.transaction().execute(async (trx) => {
          const [record] = await readClocks(spec, { database, db: trx, user: options.user, id })
          if (record === undefined) throw recordNotFound()
          await trx
            .insertInto(SYSTEM_TABLES.retention)
            .values({ module: spec.name, record_id: id, reviewed_at: reviewedAt, reviewed_by: options.actor })
            .onConflict((oc) =>
              oc.columns(['module', 'record_id']).doUpdateSet({ reviewed_at: reviewedAt, reviewed_by: options.actor }),
            )
            .execute()
          await appendAudit({
            database,
            trx,
            at: formatExactTimestamp(at, timezone),
            events: [
              {
                userId: options.actor,
                action: body.decision,
                module: spec.name,
                recordId: id,
                version: null,
                recordHash: null,
                fields: [],
                motivo: body.motivo,
                address: options.request?.address ?? null,
                requestId: options.request?.requestId ?? null,
              },
            ],
          })
          return stateOf(spec, { ...record, lastReview: reviewedAt, reviewedBy: options.actor }, reviewedAt)
        })
      } catch (error) {
        if (database.isBusy(error)) throw busy(error)
        throw error
      }
    },
  }
}
