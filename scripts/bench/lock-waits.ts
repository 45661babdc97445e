// The share of a write window's backend time spent waiting for locks, on PostgreSQL:
// while the window is open, a connection of its own polls `pg_stat_activity` every few
// milliseconds for the client backends of one database. Each poll is a sample of what every
// backend was doing at that instant; over many polls, the count of (backend, poll) pairs in a
// state is proportional to the time spent in it. A lock wait is state 'active' with
// wait_event_type 'Lock': wait_event 'transactionid' or 'tuple' is a row lock (a transaction
// waiting for another's row), 'advisory' an advisory lock, anything else (relation, extend, ...)
// another heavyweight lock. The share is lock-waiting samples over active samples.
// Of a request's latency: a closed-loop load (autocannon's connections, create-statements'
// concurrency) keeps a fixed number of requests in flight, so by Little's law the lock-waiting
// backends per poll over the requests in flight is the share of the requests' latency spent
// waiting for a lock (each waiting backend is one request's transaction waiting).
import pg from 'pg'

/** One backend in one poll, as pg_stat_activity shows it. */
export interface ActivityRow {
  readonly state: string | null
  readonly waitEventType: string | null
  readonly waitEvent: string | null
  /** The statement it runs (pg_stat_activity.query), when sampled. */
  readonly query?: string | null
}

export interface LockWaitTally {
  /** Polls taken. */
  readonly polls: number
  /** Backend samples with state 'active' (running a statement, waiting or not). */
  readonly active: number
  /** Active samples waiting on a row lock (wait_event transactionid or tuple). */
  readonly row: number
  /** Active samples waiting on an advisory lock. */
  readonly advisory: number
  /** Active samples waiting on any other heavyweight lock (relation, extend, ...). */
  readonly otherLock: number
  /** Lock-waiting samples by statement (its first 200 characters, spaces collapsed): who waits. */
  readonly waitingIn: Readonly<Record<string, number>>
}

export const EMPTY_TALLY: LockWaitTally = { polls: 0, active: 0, row: 0, advisory: 0, otherLock: 0, waitingIn: {} }

const statementOf = (query: string | null | undefined) => (query ?? '?').replace(/\s+/g, ' ').trim().slice(0, 200)

const addCounts = (a: Readonly<Record<string, number>>, b: Readonly<Record<string, number>>) => {
  const sum: Record<string, number> = { ...a }
  for (const [key, n] of Object.entries(b)) sum[key] = (sum[key] ?? 0) + n
  return sum
}

const ROW_LOCK_EVENTS: ReadonlySet<string> = new Set(['transactionid', 'tuple'])

/** The tally after one more poll that saw `rows`. */
export function addPoll(tally: LockWaitTally, rows: readonly ActivityRow[]): LockWaitTally {
  let { active, row, advisory, otherLock } = tally
  const waitingIn: Record<string, number> = { ...tally.waitingIn }
  for (const r of rows) {
    if (r.state !== 'active') continue
    active += 1
    if (r.waitEventType !== 'Lock') continue
    const statement = statementOf(r.query)
    waitingIn[statement] = (waitingIn[statement] ?? 0) + 1
    if (r.waitEvent !== null && ROW_LOCK_EVENTS.has(r.waitEvent)) row += 1
    else if (r.waitEvent === 'advisory') advisory += 1
    else otherLock += 1
  }
  return { polls: tally.polls + 1, active, row, advisory, otherLock, waitingIn }
}

/** Two windows' samples pooled (rounds of one scenario on one target). */
export const mergeTallies = (a: LockWaitTally, b: LockWaitTally): LockWaitTally => ({
  polls: a.polls + b.polls,
  active: a.active + b.active,
  row: a.row + b.row,
  advisory: a.advisory + b.advisory,
  otherLock: a.otherLock + b.otherLock,
  waitingIn: addCounts(a.waitingIn, b.waitingIn),
})

/** The statements that waited most, with their share of the lock-waiting samples, most first. */
export function topWaiting(tally: LockWaitTally, count: number): readonly { statement: string; share: number }[] {
  const total = Object.values(tally.waitingIn).reduce((n, k) => n + k, 0)
  return Object.entries(tally.waitingIn)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, count)
    .map(([statement, n]) => ({ statement, share: n / total }))
}

export interface LockWaitShares {
  /** Lock-waiting samples / active samples, 0..1 (NaN with no active sample). */
  readonly lock: number
  readonly row: number
  readonly advisory: number
  readonly otherLock: number
  /** Active backends per poll, on average: how many statements were in flight. */
  readonly activePerPoll: number
}

export function sharesOf(tally: LockWaitTally): LockWaitShares {
  const of = (n: number) => (tally.active === 0 ? Number.NaN : n / tally.active)
  return {
    lock: of(tally.row + tally.advisory + tally.otherLock),
    row: of(tally.row),
    advisory: of(tally.advisory),
    otherLock: of(tally.otherLock),
    activePerPoll: tally.polls === 0 ? Number.NaN : tally.active / tally.polls,
  }
}

/** Lock-waiting backends per poll / requests in flight: the share of request latency spent waiting for locks. */
export function latencyShare(tally: LockWaitTally, inFlight: number): number {
  if (tally.polls === 0 || inFlight <= 0) return Number.NaN
  return (tally.row + tally.advisory + tally.otherLock) / tally.polls / inFlight
}

const percent = (x: number) => (Number.isNaN(x) ? '-' : `${(x * 100).toFixed(0)}%`)

/**
 * e.g. "62% of active backend time (row 55%, advisory 7%, other locks 0%; 4.1 active backends,
 * 2,310 polls)", then with `inFlight` "; 25% of request latency (2.5 waiting backends / 10 in flight)".
 */
export function formatShares(tally: LockWaitTally, inFlight?: number): string {
  const s = sharesOf(tally)
  const waiting = tally.polls === 0 ? Number.NaN : (tally.row + tally.advisory + tally.otherLock) / tally.polls
  const latency =
    inFlight === undefined
      ? ''
      : `; ${percent(latencyShare(tally, inFlight))} of request latency (${Number.isNaN(waiting) ? '-' : waiting.toFixed(1)} waiting backends / ${inFlight} in flight)`
  return (
    `${percent(s.lock)} of active backend time (row ${percent(s.row)}, advisory ${percent(s.advisory)}, ` +
    `other locks ${percent(s.otherLock)}; ${Number.isNaN(s.activePerPoll) ? '-' : s.activePerPoll.toFixed(1)} active backends, ` +
    `${tally.polls.toLocaleString('en')} polls)${latency}`
  )
}

export interface LockWaitSampler {
  /** Stops polling (after the poll in flight) and answers what the polls saw. */
  stop(): Promise<LockWaitTally>
}

/** The sampler's one query (create-statements.ts leaves it out of its per-statement tally). */
export const ACTIVITY_QUERY = `select state, wait_event_type, wait_event, query from pg_stat_activity
  where datname = $1 and backend_type = 'client backend' and pid <> pg_backend_pid()`

/**
 * Polls the client backends of the database `url` names, every `intervalMs`, from a connection
 * of its own (left out of the samples) until `stop`.
 */
export async function startLockWaitSampler(url: string, intervalMs = 10): Promise<LockWaitSampler> {
  const database = decodeURIComponent(new URL(url).pathname.slice(1))
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  let tally = EMPTY_TALLY
  let stopping = false
  const poll = async () => {
    while (!stopping) {
      const result = await client.query<{
        state: string | null
        wait_event_type: string | null
        wait_event: string | null
        query: string | null
      }>(ACTIVITY_QUERY, [database])
      tally = addPoll(
        tally,
        result.rows.map((r) => ({
          state: r.state,
          waitEventType: r.wait_event_type,
          waitEvent: r.wait_event,
          query: r.query,
        })),
      )
      await new Promise((resolve) => setTimeout(resolve, intervalMs))
    }
  }
  // A failed poll ends the polling; `stop` reports it (not an unhandled rejection meanwhile).
  let failure: unknown
  const polling = poll().catch((error: unknown) => void (failure = error ?? new Error('poll failed')))
  return {
    async stop() {
      stopping = true
      await polling
      await client.end()
      if (failure !== undefined) throw failure
      return tally
    },
  }
}
