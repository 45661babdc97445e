// Rate-limit counters in Redis, shared by every instance (issue #8, D24): one key per
// window, counted and given its expiry in one atomic script, so N instances enforce one limit.
import { Redis } from 'ioredis'
import { createMemoryCounterStore, type CounterStore } from './rate-limit.js'

/** INCR, and on the window's first hit PEXPIRE: atomic, so no key outlives its window. */
const HIT_SCRIPT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`

export interface RedisCounterStoreOptions {
  readonly url: string
  /** Prepended to every key: several services (or tests) can share one Redis. */
  readonly keyPrefix: string
  /** Redis did not answer: this hit was counted in process memory instead. */
  readonly onError: (error: unknown) => void
}

export interface ClosableCounterStore extends CounterStore {
  close(): Promise<void>
}

export function createRedisCounterStore(options: RedisCounterStoreOptions): ClosableCounterStore {
  const redis = new Redis(options.url, { keyPrefix: options.keyPrefix, maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false })
  redis.on('error', () => undefined) // reported per failed hit below, not once per reconnect attempt
  // While Redis is away each instance still limits on its own: degraded, never unlimited.
  const fallback = createMemoryCounterStore()
  return {
    async hit(key, windowMs, now) {
      const start = Math.floor(now / windowMs) * windowMs
      const resetAt = start + windowMs
      try {
        // A second of slack: an instance whose clock runs a little behind still finds the key.
        const count = await redis.eval(HIT_SCRIPT, 1, `${windowMs}:${start}:${key}`, String(resetAt - now + 1000))
        return { count: Number(count), resetAt }
      } catch (error) {
        options.onError(error)
        return fallback.hit(key, windowMs, now)
      }
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect())
    },
  }
}
