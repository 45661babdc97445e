// Brute force slowed without a lockout switch (after OWASP's authentication
// guidance): failures are counted per username and client address and per username. An address
// that failed `maxFailures` times for a username waits before its next try, twice as long after
// each further failure (up to `maxDelayMs`); an address that did not fail is never held back, so
// the owner still logs in from their own. Past `alertFailures` for one username from all
// addresses the caller raises an alert, and every address that failed even once waits.
// Unknown usernames are counted the same way, so a wait tells nothing about who exists (D19).
// Counts live in a shared store (the database, or Redis) and outlive restarts. A wrong current
// password on POST /me/password is a failure of its account like a wrong login (F6).
import { hash } from 'node:crypto'
import type { LoginFailureStore } from '../db/accounts/login-failures.js'
import { canonicalUsername } from '../records/account-rules.js'

/** The policy, from the LOGIN_* settings. */
export interface LoginProtectionSettings {
  /** Failures of one username from one address before that address must wait. */
  readonly maxFailures: number
  /** The first wait; each further failure doubles it, up to `maxDelaySeconds`. */
  readonly delaySeconds: number
  readonly maxDelaySeconds: number
  /** Failures of one username from all addresses that raise an alert. */
  readonly alertFailures: number
  /** A count is forgotten this long after its last failure. */
  readonly windowSeconds: number
}

export interface LoginThrottleOptions {
  readonly store: LoginFailureStore
  readonly clock: () => Date
  readonly maxFailures: number
  readonly delayMs: number
  readonly maxDelayMs: number
  readonly alertFailures: number
  /** A count is forgotten this long after its last failure. */
  readonly windowMs: number
}

export interface FailureOutcome {
  /** Failures of the username from every address, this one included. */
  readonly usernameFailures: number
  /** This failure brought the username to the alert ceiling (or another multiple of it). */
  readonly alert: boolean
}

export interface LoginThrottle {
  /** Milliseconds `address` must wait before trying `username` again; 0 when it may now. */
  waitMs(username: string, address: string): Promise<number>
  failed(username: string, address: string): Promise<FailureOutcome>
  /** The right password from `address`: its count starts over (the username's stays, as evidence). */
  succeeded(username: string, address: string): Promise<void>
}

/** Keys are hashes: the store holds no username or address in clear. */
const keyOf = (...parts: string[]): string => hash('sha256', parts.join('\n'), 'base64url')
const usernameKey = (username: string) => keyOf('username', canonicalUsername(username))
const pairKey = (username: string, address: string) => keyOf('pair', canonicalUsername(username), address)

export function createLoginThrottle(options: LoginThrottleOptions): LoginThrottle {
  const now = () => options.clock().getTime()
  /** The wait after `failures` failures, with `allowed` of them free. */
  const delayAfter = (failures: number, allowed: number): number =>
    failures < allowed ? 0 : Math.min(options.maxDelayMs, options.delayMs * 2 ** Math.min(failures - allowed, 30))

  return {
    async waitMs(username, address) {
      const at = now()
      const keys = [usernameKey(username), pairKey(username, address)]
      const [user, pair] = await options.store.read(keys, at, options.windowMs)
      const allowed = user!.failures >= options.alertFailures ? 1 : options.maxFailures
      return Math.max(0, pair!.lastAt + delayAfter(pair!.failures, allowed) - at)
    },
    async failed(username, address) {
      const keys = [usernameKey(username), pairKey(username, address)]
      const [user] = await options.store.record(keys, now(), options.windowMs)
      const failures = user!.failures
      const alert = failures >= options.alertFailures && failures % options.alertFailures === 0
      return { usernameFailures: failures, alert }
    },
    async succeeded(username, address) {
      await options.store.clear(pairKey(username, address))
    },
  }
}
