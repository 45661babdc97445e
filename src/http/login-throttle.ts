// Brute force on one account is slowed beyond the per-IP limit (issue #6): after
// `maxFailures` failed logins in a row for a username, that username is locked for
// `lockMs`; each failure after a lock locks it again at once, twice as long (up to 16x).
// Unknown usernames are counted the same way, so a lock tells nothing about who exists (D19).
// Counts live in process memory, bounded by `maxTracked` usernames.

export interface LoginThrottleOptions {
  readonly maxFailures: number
  readonly lockMs: number
  readonly clock: () => Date
  readonly maxTracked?: number
}

export interface LoginThrottle {
  /** Milliseconds until `username` may try again; 0 when it may now. */
  waitMs(username: string): number
  failed(username: string): void
  succeeded(username: string): void
}

interface Entry {
  failures: number
  lockedUntil: number
}

export function createLoginThrottle(options: LoginThrottleOptions): LoginThrottle {
  const entries = new Map<string, Entry>()
  const maxTracked = options.maxTracked ?? 10_000
  const now = () => options.clock().getTime()
  return {
    waitMs(username) {
      const entry = entries.get(username)
      return entry === undefined ? 0 : Math.max(0, entry.lockedUntil - now())
    },
    failed(username) {
      const entry = entries.get(username) ?? { failures: 0, lockedUntil: 0 }
      entries.delete(username) // re-inserted last: the oldest entry is the first to go
      entry.failures += 1
      const over = entry.failures - options.maxFailures
      if (over >= 0) entry.lockedUntil = now() + options.lockMs * 2 ** Math.min(over, 4)
      entries.set(username, entry)
      if (entries.size > maxTracked) entries.delete(entries.keys().next().value as string)
    },
    succeeded(username) {
      entries.delete(username)
    },
  }
}
