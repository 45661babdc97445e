// A record's retention state (D41), what the store's callers pass to decide, and how a state is
// answered: shared by the queue (store.ts) and the decisions (retention-decisions.ts).
import type { ModuleSpec, RetentionSpec } from '../../compile/types.js'
import type { ActingUser } from '../../records/acting-user.js'
import { addDuration, dueOf, nextDueOf, type DueReason } from '../../records/retention-due.js'
import type { ChangeWatch } from '../change-watch.js'
import type { Database } from '../database.js'
import type { RequestContext } from '../records/types.js'
import type { RecordClock } from './clocks.js'

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
  /** A block in force (`bloquear`): when and by whom; null: not blocked. */
  readonly blocked_at: string | null
  readonly blocked_by: string | null
  /** Still due (a longest keep passed is not lifted by a review): since when and why. */
  readonly due_since: string | null
  readonly reason: DueReason | null
  readonly hold: string | null
}

export interface RetentionStoreOptions {
  readonly database: Database
  readonly timezone: string
  readonly clock: () => Date
  /** A block or its lift changes what a module's lists hold: their caches expire (D20, D41). */
  readonly changes: ChangeWatch
}

export interface DecisionOptions {
  /** Whose record scope applies; null: none (the command line's operator). */
  readonly user: ActingUser | null
  /** Who decides, as audit entries name them. */
  readonly actor: string
  readonly request?: RequestContext
}

/** The state a decision answers with; a blocked record is not due: blocking answered it. */
export function stateOf(spec: ModuleSpec, retention: RetentionSpec, clock: RecordClock, now: string): RetentionState {
  const due = clock.blockedAt === null ? dueOf(retention, { ...clock, now }) : undefined
  return {
    module: spec.name,
    id: clock.id,
    from: clock.from,
    reviewed_at: clock.lastReview,
    reviewed_by: clock.reviewedBy,
    next_due: nextDueOf(retention, clock),
    keep_until:
      clock.from === null || retention.keepAtMost === undefined ? null : addDuration(clock.from, retention.keepAtMost),
    blocked_at: clock.blockedAt,
    blocked_by: clock.blockedBy,
    due_since: due?.since ?? null,
    reason: due?.reason ?? null,
    hold: null,
  }
}
