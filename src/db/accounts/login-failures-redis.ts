// Failed-login counts in Redis (REDIS_URL): one hash per key, counted and
// given its expiry in one atomic script, so every instance sees one count. While Redis does not
// answer, the database store counts instead: logins go on, still slowed, never unprotected.
import type { Redis } from 'ioredis'
import { NO_FAILURES, type FailureCount, type LoginFailureStore } from './login-failures.js'

/** HINCRBY and PEXPIRE at once: a count lives `keepMs` after its last failure. */
const RECORD_SCRIPT = `
local n = redis.call('HINCRBY', KEYS[1], 'failures', 1)
redis.call('HSET', KEYS[1], 'last_at', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return n`

const PREFIX = 'login-failures:'

export function createRedisLoginFailureStore(
  redis: Redis,
  fallback: LoginFailureStore,
  onError: (error: unknown) => void,
): LoginFailureStore {
  const store = redisStore(redis)
  type Call<A extends unknown[], R> = (s: LoginFailureStore, ...args: A) => Promise<R>
  const guarded =
    <A extends unknown[], R>(call: Call<A, R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await call(store, ...args)
      } catch (error) {
        onError(error)
        return call(fallback, ...args)
      }
    }
  return {
    read: guarded((s, keys: readonly string[], now: number, keepMs: number) => s.read(keys, now, keepMs)),
    record: guarded((s, keys: readonly string[], now: number, keepMs: number) => s.record(keys, now, keepMs)),
    clear: guarded((s, key: string) => s.clear(key)),
  }
}

function redisStore(redis: Redis): LoginFailureStore {
  return {
    async read(keys) {
      const rows = await Promise.all(keys.map((key) => redis.hmget(`${PREFIX}${key}`, 'failures', 'last_at')))
      return rows.map(([failures, lastAt]): FailureCount =>
        failures === null || failures === undefined
          ? NO_FAILURES
          : { failures: Number(failures), lastAt: Number(lastAt) },
      )
    },
    async record(keys, now, keepMs) {
      return Promise.all(
        keys.map(async (key) => {
          const failures = await redis.eval(RECORD_SCRIPT, 1, `${PREFIX}${key}`, String(now), String(keepMs))
          return { failures: Number(failures), lastAt: now }
        }),
      )
    },
    async clear(key) {
      await redis.del(`${PREFIX}${key}`)
    },
  }
}
