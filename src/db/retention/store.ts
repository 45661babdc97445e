// The retention queue and its decisions (D41), over the records a caller may see: the one place
// that decides access to them (the record scope of records/query.ts), so the routes, the command
// line and any path to come inherit it.
import { formatTimestamp } from '../../compile/time.js'
import type { ModuleSpec } from '../../compile/types.js'
import type { ActingUser } from '../../records/acting-user.js'
import { dueOf, latestDueFrom, type DueReason } from '../../records/retention-due.js'
import type { RetentionDecisionBody } from '../../records/retention-request.js'
import { readClocks } from './clocks.js'
import { decide } from './retention-decisions.js'
import type { DecisionOptions, RetentionState, RetentionStoreOptions } from './state.js'

export type { DecisionOptions, RetentionState, RetentionStoreOptions }

/** One due record of the queue (D41); `hold` is the legal hold's reference, to come: null. */
export interface DueRecord {
  readonly module: string
  readonly id: string
  readonly due_since: string
  readonly reason: DueReason
  readonly hold: string | null
}

export interface RetentionStore {
  /** The due records of `modules` that `user` may see, the longest due first, and their total. */
  queue(
    modules: readonly ModuleSpec[],
    user: ActingUser | null,
    page?: { readonly limit: number; readonly offset: number },
  ): Promise<{ entries: DueRecord[]; total: number }>
  /**
   * Applies a decision on one record in the caller's scope (404 otherwise), audited with its
   * motivo; 409 when the record's block does not allow it (retention-decisions.ts).
   */
  decide(spec: ModuleSpec, id: string, body: RetentionDecisionBody, options: DecisionOptions): Promise<RetentionState>
}

export function createRetentionStore({ database, timezone, clock, changes }: RetentionStoreOptions): RetentionStore {
  return {
    async queue(modules, user, page) {
      const now = formatTimestamp(clock(), timezone)
      const entries: DueRecord[] = []
      for (const spec of modules) {
        if (spec.retention === undefined) continue
        const dueBy = latestDueFrom(spec.retention, now)
        for (const record of await readClocks(spec, { database, db: database.db, user, dueBy })) {
          // A blocked record's decision is taken: it leaves the queue until it is unblocked.
          const due = record.blockedAt === null ? dueOf(spec.retention, { ...record, now }) : undefined
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

    decide: (spec, id, body, options) => decide({ database, timezone, clock, changes }, spec, id, body, options),
  }
}
