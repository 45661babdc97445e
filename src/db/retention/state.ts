// A record's retention state (D41), what the store's callers pass to decide, and how a state is
// answered: shared by the queue (store.ts) and the decisions (retention-decisions.ts).
import type { ModuleSpec, RetentionSpec } from '../../compile/types.js'
import type { ActingUser } from '../../records/acting-user.js'
import { addDuration, dueOf, nextDueOf, type DueReason } from '../../records/retention-due.js'
import type { AuditAction, AuditEvent } from '../audit/log.js'
import type { ChangeWatch } from '../change-watch.js'
import type { Database } from '../database.js'
import type { RequestContext } from '../records/types.js'
import type { RecordClock } from './clocks.js'
import type { RecordKeys } from '../keys/record-keys.js'

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
  /** The reference of a legal hold in force (`retener`); null: none. */
  readonly hold: string | null
}

/** What is left of an erased record (D41 `suprimir`): never one of its values. */
/** The data keys (D41) each erasure of this process destroyed, by its tombstone: for the acta. */
const destroyedKeys = new WeakMap<Tombstone, readonly string[]>()
export const noteDestroyedKeys = (tombstone: Tombstone, ids: readonly string[]): void => {
  destroyedKeys.set(tombstone, ids)
}
/** The ids of the data keys destroyed with the erasure that answered `result`; [] for any other answer. */
export const destroyedKeysOf = (result: unknown): readonly string[] =>
  typeof result === 'object' && result !== null ? (destroyedKeys.get(result as Tombstone) ?? []) : []

export interface Tombstone {
  readonly module: string
  readonly id: string
  readonly erased_at: string
  readonly erased_by: string
  readonly motivo: string
  /** The module's `retention.basis` when it was erased. */
  readonly basis: string
}

export interface RetentionStoreOptions {
  readonly database: Database
  readonly timezone: string
  readonly clock: () => Date
  /** Every module by name: an erasure looks for records that reference the erased one (D35). */
  readonly modules: ReadonlyMap<string, ModuleSpec>
  /** An erasure, a block or its lift bumps the generation: caches drop what lists no longer hold (D20, D41). */
  readonly changes: ChangeWatch
  /** The accounts module: an account is erased only once deleted (errors.ts liveAccountErasure). */
  readonly accountsModule: string
  /** SQLite: DATA_DIR, where an erased record's evidence files (D43) are removed from. */
  readonly dataDir: string
  /** The per-record data keys (D41) an erasure destroys; absent: none kept (a bare store in a test). */
  readonly recordKeys?: Pick<RecordKeys, 'destroy' | 'destroysInTransaction' | 'noteErased'>
  /**
   * SQLite: destroying an erased record's data keys after its commit failed (D41). The erasure
   * stands; the keys are left to the sweep (every start, every retention run). Logged at error level.
   */
  readonly onKeyDestroyFailure?: (failure: KeyDestroyFailure) => void
}

/** Which erased record's data keys are still to be destroyed, and why. */
export interface KeyDestroyFailure {
  readonly module: string
  readonly recordId: string
  readonly error: unknown
}

export interface DecisionOptions {
  /** Whose record scope applies; null: none (the command line's operator). */
  readonly user: ActingUser | null
  /** Who decides, as audit entries name them. */
  readonly actor: string
  readonly request?: RequestContext
  /**
   * After a `suprimir`, make the freed space unreadable at once (erasure-sql.ts reclaimFreedSpace):
   * default true. A caller erasing many records passes false and calls the store's `reclaim`
   * once at the end.
   */
  readonly reclaim?: boolean
}

/** The audit entry of a retention decision or a hold on one record (D41): its motivo, no values. */
export const retentionEvent = (
  spec: ModuleSpec,
  id: string,
  action: AuditAction,
  motivo: string,
  options: DecisionOptions,
  criteria: Readonly<Record<string, unknown>> | null = null,
): AuditEvent => ({
  userId: options.actor,
  action,
  module: spec.name,
  recordId: id,
  version: null,
  recordHash: null,
  fields: [],
  motivo,
  criteria,
  address: options.request?.address ?? null,
  requestId: options.request?.requestId ?? null,
})

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
    hold: clock.hold,
  }
}
