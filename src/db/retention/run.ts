// The automatic expiries of `records retention run` and the service's daily run (D41): every
// record past its module's `keep_at_most` whose `on_expiry` is `block` or `erase` gets that
// decision through the same decide() as a person's (scope, transaction, audit entry with its
// motivo), as `actor`. A record that refuses it (409: held, still referenced through a field
// that restricts deletion (D35), or decided a moment ago by someone else; 404: gone meanwhile)
// is skipped and reported, not a failure of the run.
import { formatTimestamp } from '../../compile/time.js'
import type { ModuleSpec, RetentionSpec } from '../../compile/types.js'
import { durationText } from '../../config/duration.js'
import { isAppError, MOTIVO_MAX_LENGTH } from '../../errors.js'
import { addDuration, dueOf, latestDueFrom, plannedAction } from '../../records/retention-due.js'
import type { Database } from '../database.js'
import { readClocks } from './clocks.js'
import { destroyedKeysOf } from './state.js'
import type { RetentionStore } from './store.js'

/** What on_expiry does once keep_at_most has passed: the automatic decisions only. */
export type ExpiryDecision = 'bloquear' | 'suprimir'

/** A record past its longest keep and what its module's on_expiry does with it. */
export interface Expiry {
  readonly module: string
  readonly id: string
  /** `from + keep_at_most`: since when it is past its longest keep. */
  readonly keep_until: string
  readonly decision: ExpiryDecision
  /** An applied erasure: the ids of the record's data keys it destroyed (D41), for the acta. */
  readonly destroyedKeys?: readonly string[]
}

/** An expiry the record refused: why, in the words of the refusal. */
export interface SkippedExpiry extends Expiry {
  readonly reason: string
  /** The refusal's details (a hold's reference among them). */
  readonly details: readonly string[]
}

export interface ExpiryRun {
  /** When the run looked, as stored times are written. */
  readonly at: string
  readonly applied: readonly Expiry[]
  readonly skipped: readonly SkippedExpiry[]
  /** A failure that stopped the run: what was applied before it stays applied (and listed). */
  readonly failure?: unknown
  /**
   * After erasures, whether the freed space was made unreadable (erasure-sql.ts; false: another
   * connection kept SQLite's WAL in use, so it may hold pages from before the erasures).
   */
  readonly reclaimed?: boolean
}

export interface ExpiryRunOptions {
  readonly database: Database
  readonly timezone: string
  readonly clock: () => Date
  readonly modules: readonly ModuleSpec[]
  /** The retention store: its decide, and its reclaim once after the erasures. */
  readonly store: Pick<RetentionStore, 'decide' | 'reclaim'>
  /** Who decides, as audit entries name them (`cli:<user>`, `sistema`). */
  readonly actor: string
}

/** The modules whose on_expiry acts by itself: block or erase, with a longest keep to act on. */
export const expiringModules = (modules: readonly ModuleSpec[]): ModuleSpec[] =>
  modules.filter((m) => m.retention?.keepAtMost !== undefined && m.retention.onExpiry !== 'review')

/**
 * The records of `spec` past their longest keep, oldest first. A block already in force is
 * the answer of `block`; `erase` still erases a blocked record (the block kept it out of use
 * until its longest keep, which has now passed) and a deleted one (D10 keeps its values).
 */
export async function findExpiries(database: Database, spec: ModuleSpec, now: string): Promise<Expiry[]> {
  const retention = spec.retention
  if (retention === undefined || retention.keepAtMost === undefined) return []
  const decision = plannedAction('plazo_maximo', retention.onExpiry)
  if (decision !== 'bloquear' && decision !== 'suprimir') return []
  const dueBy = latestDueFrom(retention, now)
  const read = { database, db: database.db, user: null, dueBy, includeDeleted: decision === 'suprimir' }
  const found: Expiry[] = []
  for (const clock of await readClocks(spec, read)) {
    if (decision === 'bloquear' && clock.blockedAt !== null) continue
    if (dueOf(retention, { ...clock, now })?.reason !== 'plazo_maximo' || clock.from === null) continue
    found.push({ module: spec.name, id: clock.id, keep_until: addDuration(clock.from, retention.keepAtMost), decision })
  }
  return found.sort((a, b) => a.keep_until.localeCompare(b.keep_until) || a.id.localeCompare(b.id))
}

const WHAT: Readonly<Record<ExpiryDecision, string>> = {
  bloquear: 'Bloqueo automático',
  suprimir: 'Supresión automática',
}

/** The motivo of an automatic decision: the module's basis and longest keep, within the motivo's limit. */
export function expiryMotivo(retention: RetentionSpec, decision: ExpiryDecision): string {
  const keep = retention.keepAtMost === undefined ? '' : durationText(retention.keepAtMost)
  const head = `${WHAT[decision]} (records retention run, D41): cumplido el plazo máximo de conservación (keep_at_most ${keep}). Base: `
  const room = MOTIVO_MAX_LENGTH - head.length
  const basis = retention.basis.length <= room ? retention.basis : `${retention.basis.slice(0, room - 1)}…`
  return `${head}${basis}`
}

/** A refusal that skips the record: the record's own state said no (409) or it is gone (404). */
const refusalOf = (error: unknown): { reason: string; details: string[] } | undefined =>
  isAppError(error) && (error.statusCode === 409 || error.statusCode === 404)
    ? { reason: error.message, details: (error.details ?? []).map((d) => d.message) }
    : undefined

/**
 * Applies every expiry of `options.modules`, one decision (one transaction) per record. A
 * failure other than a refusal stops the run and is returned with what was applied before it,
 * so that the caller still records those (an acta for the erased ones).
 */
export async function applyExpiries(options: ExpiryRunOptions): Promise<ExpiryRun> {
  const at = formatTimestamp(options.clock(), options.timezone)
  const applied: Expiry[] = []
  const skipped: SkippedExpiry[] = []
  const erasedIn = new Set<ModuleSpec>()
  // Erasures leave the freed space to one reclaim at the end (a checkpoint or VACUUM each would be slow).
  const decisionOptions = { user: null, actor: options.actor, reclaim: false }
  let failure: unknown
  try {
    for (const spec of expiringModules(options.modules)) {
      const retention = spec.retention as RetentionSpec
      for (const expiry of await findExpiries(options.database, spec, at)) {
        const body = { decision: expiry.decision, motivo: expiryMotivo(retention, expiry.decision) }
        try {
          const result = await options.store.decide(spec, expiry.id, body, decisionOptions)
          applied.push(expiry.decision === 'suprimir' ? { ...expiry, destroyedKeys: destroyedKeysOf(result) } : expiry)
          if (expiry.decision === 'suprimir') erasedIn.add(spec)
        } catch (error) {
          const refusal = refusalOf(error)
          if (refusal === undefined) throw error
          skipped.push({ ...expiry, ...refusal })
        }
      }
    }
  } catch (error) {
    failure = error
  }
  const reclaimed =
    erasedIn.size === 0
      ? undefined
      : await options.store.reclaim([...erasedIn]).catch((error: unknown) => {
          failure ??= error
          return false
        })
  return {
    at,
    applied,
    skipped,
    ...(reclaimed === undefined ? {} : { reclaimed }),
    ...(failure === undefined ? {} : { failure }),
  }
}
