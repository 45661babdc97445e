// Where rate limits are counted while the Redis of REDIS_URL does not answer (rate-limit.ts):
// in process memory, on the service's clock, in the shape of @fastify/rate-limit's stores.
// Keys carry their window's start (rate-limit.ts): expiry only clears old keys.
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit'

type Callback = Parameters<FastifyRateLimitStore['incr']>[1]

interface Entry {
  count: number
  expiresAt: number
}

export interface ClockStore extends FastifyRateLimitStore {
  read(key: string, callback: Callback, timeWindow: number): void
}

/** A store class for the plugin (it constructs one); every instance shares one map per clock. */
export function clockStore(clock: () => Date): FastifyRateLimitStoreCtor & { new(): ClockStore } {
  const entries = new Map<string, Entry>()
  let nextPrune = 0
  const prune = (now: number) => {
    // Bounded memory: keys of ended windows go at most once a minute.
    if (now < nextPrune) return
    nextPrune = now + 60_000
    for (const [key, entry] of entries) if (entry.expiresAt <= now) entries.delete(key)
  }
  return class implements ClockStore {
    incr(key: string, callback: Callback, timeWindow: number): void {
      const now = clock().getTime()
      prune(now)
      let entry = entries.get(key)
      if (entry === undefined || entry.expiresAt <= now) {
        entry = { count: 0, expiresAt: now + timeWindow }
        entries.set(key, entry)
      }
      entry.count += 1
      callback(null, { current: entry.count, ttl: entry.expiresAt - now })
    }

    read(key: string, callback: Callback): void {
      const now = clock().getTime()
      const entry = entries.get(key)
      const alive = entry !== undefined && entry.expiresAt > now
      callback(null, alive ? { current: entry.count, ttl: entry.expiresAt - now } : { current: 0, ttl: 0 })
    }

    child(): ClockStore {
      return this // one map: the limiters' keys never collide (each starts with its own name)
    }
  }
}
