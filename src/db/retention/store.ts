// The retention queue and its decisions (D41), over the records a caller may see: the one place
// that decides access to them (the record scope of records/query.ts), so the routes, the command
// line and any path to come inherit it.
import { formatTimestamp } from '../../compile/time.js'
import type { ModuleSpec } from '../../compile/types.js'
import type { ActingUser } from '../../records/acting-user.js'
import { dueOf, latestDueFrom, type DueReason } from '../../records/retention-due.js'
import type { RetentionDecisionBody, RetentionHoldBody, RetentionReleaseBody } from '../../records/retention-request.js'
import { recordNotFound } from '../../errors.js'
import { readClocks } from './clocks.js'
import { readTombstone } from './erasure.js'
import { reclaimFreedSpace } from './erasure-sql.js'
import { changeHold } from './holds.js'
import { decide } from './retention-decisions.js'
import {
  stateOf,
  type DecisionOptions,
  type RetentionState,
  type RetentionStoreOptions,
  type Tombstone,
} from './state.js'

export type { DecisionOptions, RetentionState, RetentionStoreOptions, Tombstone }

/** One due record of the queue (D41); `hold`: the reference of a legal hold in force, else null. */
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
   * motivo; 409 when the record's block does not allow it (retention-decisions.ts). `suprimir`
   * erases it and answers its tombstone; 409 `Registro retenido` under a legal hold (erasure.ts).
   */
  decide(
    spec: ModuleSpec,
    id: string,
    body: RetentionDecisionBody,
    options: DecisionOptions,
  ): Promise<RetentionState | Tombstone>
  /** Puts a legal hold on one record in the caller's scope; 409 when it already has one (holds.ts). */
  hold(spec: ModuleSpec, id: string, body: RetentionHoldBody, options: DecisionOptions): Promise<RetentionState>
  /** Lifts the legal hold of one record in the caller's scope; 409 when it has none. */
  release(spec: ModuleSpec, id: string, body: RetentionReleaseBody, options: DecisionOptions): Promise<RetentionState>
  /** A live record's retention state, or an erased one's tombstone; 404 outside the caller's scope or unknown. */
  status(spec: ModuleSpec, id: string, user: ActingUser | null): Promise<RetentionState | Tombstone>
  /**
   * Makes the space freed by erasures of `modules` unreadable (erasure-sql.ts), for a caller that
   * erased with `reclaim: false`; false when SQLite's WAL could not be emptied (another reader).
   */
  reclaim(modules: readonly ModuleSpec[]): Promise<boolean>
}

export function createRetentionStore(storeOptions: RetentionStoreOptions): RetentionStore {
  const { database, timezone, clock } = storeOptions
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
            entries.push({
              module: spec.name,
              id: record.id,
              due_since: due.since,
              reason: due.reason,
              hold: record.hold,
            })
        }
      }
      entries.sort(
        (a, b) =>
          a.due_since.localeCompare(b.due_since) || a.module.localeCompare(b.module) || a.id.localeCompare(b.id),
      )
      const shown = page === undefined ? entries : entries.slice(page.offset, page.offset + page.limit)
      return { entries: shown, total: entries.length }
    },

    decide: (spec, id, body, options) => decide(storeOptions, spec, id, body, options),
    hold: (spec, id, body, options) => changeHold(storeOptions, spec, id, body, options),
    release: (spec, id, body, options) => changeHold(storeOptions, spec, id, { ...body, referencia: null }, options),

    async status(spec, id, user) {
      const retention = spec.retention
      if (retention === undefined) throw recordNotFound()
      const [record] = await readClocks(spec, { database, db: database.db, user, id, includeDeleted: true })
      if (record !== undefined) return stateOf(spec, retention, record, formatTimestamp(clock(), timezone))
      const tombstone = await readTombstone(database.db, spec, id, user)
      if (tombstone === undefined) throw recordNotFound()
      return tombstone
    },

    reclaim: (modules) => reclaimFreedSpace(database, modules),
  }
}
