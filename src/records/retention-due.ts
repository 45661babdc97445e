// When a record is due under its module's `retention:` (D41). Pure: times are the service's wall
// clock as stored (`YYYY-MM-DD HH:MM:SS` in its time zone, D9), so adding a duration is calendar
// arithmetic on the text and comparing two times compares their text; no clock is read here.
import type { RetentionSpec } from '../compile/types.js'

type Duration = RetentionSpec['reviewEvery']

/** Why a record is in the queue: its review is due, or it passed the longest it may be kept. */
export type DueReason = 'revision' | 'plazo_maximo'

export interface Due {
  /** When it became due, as stored times are written. */
  readonly since: string
  readonly reason: DueReason
}

export interface RetentionClock {
  /** Where the clock starts (`from`); null: it has not started (empty date, record not in the state). */
  readonly from: string | null
  /** The last `conservar` decision; null: never reviewed. */
  readonly lastReview: string | null
  /** Now, written as stored times are. */
  readonly now: string
}

const STAMP = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2}):(\d{2}))?/

const pad = (n: number, width = 2): string => String(n).padStart(width, '0')

/**
 * `at` plus `duration` on the calendar: a month or a year later is the same day, or the last day
 * of a shorter month (31 March + 1m = 30 April; 29 February + 1y = 28 February). A date alone is
 * its first second.
 */
export function addDuration(at: string, duration: Duration): string {
  const m = STAMP.exec(at)
  if (m === null) throw new Error(`not a stored time: ${at}`)
  let [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])]
  const time = m[4] === undefined ? '00:00:00' : `${m[4]}:${m[5]}:${m[6]}`
  if (duration.unit === 'd') {
    const date = new Date(Date.UTC(year, month - 1, day + duration.amount))
    ;[year, month, day] = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()]
  } else {
    const months = year * 12 + month - 1 + duration.amount * (duration.unit === 'y' ? 12 : 1)
    year = Math.floor(months / 12)
    month = (months % 12) + 1
    day = Math.min(day, new Date(Date.UTC(year, month, 0)).getUTCDate())
  }
  return `${pad(year, 4)}-${pad(month)}-${pad(day)} ${time}`
}

/**
 * Whether a record is due and since when: the longest keep (`from + keep_at_most`) first, as a
 * review does not extend it; else the review (`from + review_every`, or the last review's).
 */
export function dueOf(
  retention: Pick<RetentionSpec, 'reviewEvery' | 'keepAtMost'>,
  clock: RetentionClock,
): Due | undefined {
  if (clock.from === null) return undefined
  if (retention.keepAtMost !== undefined) {
    const limit = addDuration(clock.from, retention.keepAtMost)
    if (limit <= clock.now) return { since: limit, reason: 'plazo_maximo' }
  }
  const review = addDuration(clock.lastReview ?? clock.from, retention.reviewEvery)
  return review <= clock.now ? { since: review, reason: 'revision' } : undefined
}

/** The next time the record falls due if nothing is decided (the review, or the longest keep if earlier). */
export function nextDueOf(
  retention: Pick<RetentionSpec, 'reviewEvery' | 'keepAtMost'>,
  clock: Omit<RetentionClock, 'now'>,
): string | null {
  if (clock.from === null) return null
  const review = addDuration(clock.lastReview ?? clock.from, retention.reviewEvery)
  if (retention.keepAtMost === undefined) return review
  const limit = addDuration(clock.from, retention.keepAtMost)
  return limit < review ? limit : review
}

/** One kept version of a record, as far as `from: estado:<state>` needs it. */
export interface StateVersion {
  readonly version: number
  /** `_modified` of that version. */
  readonly at: string
  readonly state: unknown
}

/**
 * When a record now in `state` entered it: the first version of its last unbroken run in that
 * state (versions oldest first). When the run reaches back past what is kept (a record older than
 * its kept versions), the record's creation: the earliest it could have been, so it is reviewed
 * no later than it should. Null when the latest version is not in `state`.
 */
export function stateEnteredAt(versions: readonly StateVersion[], state: string, created: string): string | null {
  let start: StateVersion | undefined
  for (let i = versions.length - 1; i >= 0 && versions[i]?.state === state; i -= 1) start = versions[i]
  if (start === undefined) return versions.length === 0 ? created : null
  return start === versions[0] && start.version > 1 ? created : start.at
}

/** What would happen to a due record: a person's review, or the module's automatic `on_expiry`. */
export type PlannedAction = 'revisar' | 'bloquear' | 'suprimir'

const EXPIRY_ACTIONS: Readonly<Record<RetentionSpec['onExpiry'], PlannedAction>> = {
  review: 'revisar',
  block: 'bloquear',
  erase: 'suprimir',
}

/**
 * A periodic review always waits for a person; `on_expiry` applies once the longest keep has
 * passed (D41 in docs/decisions.md): an unanswered review is no ground to block or erase.
 */
export const plannedAction = (reason: DueReason, onExpiry: RetentionSpec['onExpiry']): PlannedAction =>
  reason === 'revision' ? 'revisar' : EXPIRY_ACTIONS[onExpiry]

/** The fewest days a duration adds on the calendar: a month is at least 28, a year at least 365. */
const FEWEST_DAYS: Readonly<Record<Duration['unit'], number>> = { d: 1, m: 28, y: 365 }

/**
 * The latest starting point a record that was never reviewed can have and be due at `now`: what
 * the queue asks the database for, so that it reads only records that may be due (the exact
 * check is dueOf). A duration adds at least its fewest days, so a later start cannot be due.
 */
export function latestDueFrom(retention: Pick<RetentionSpec, 'reviewEvery' | 'keepAtMost'>, now: string): string {
  const durations =
    retention.keepAtMost === undefined ? [retention.reviewEvery] : [retention.reviewEvery, retention.keepAtMost]
  const days = Math.min(...durations.map((d) => d.amount * FEWEST_DAYS[d.unit]))
  return addDuration(now, { amount: -days, unit: 'd' })
}
