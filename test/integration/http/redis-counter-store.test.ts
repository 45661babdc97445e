// Issue #8, D24: rate-limit counters in Redis are one count for every instance; without
// Redis each instance still limits (per-process fallback), never unlimited.
import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import t from 'tap'
import { createRedisCounterStore } from '../../../src/http/redis-counter-store.js'
import { IN_CI } from '../../helpers/postgres.js'

const REDIS_URL = process.env['RECORDS_TEST_REDIS_URL'] || 'redis://127.0.0.1:6379'
const prefix = () => `records-test:${process.pid}:${randomBytes(4).toString('hex')}:`

async function redisAnswers(): Promise<boolean> {
  const probe = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null })
  probe.on('error', () => undefined)
  try {
    await probe.connect()
    return (await probe.ping()) === 'PONG'
  } catch {
    return false
  } finally {
    probe.disconnect()
  }
}

const reachable = await redisAnswers()
const skip = reachable ? false : `REDIS IS NOT REACHABLE at ${REDIS_URL}`
if (!reachable && IN_CI) t.fail(`${skip} (CI requires Redis)`)

t.test('two stores on one Redis count together, per key and per window', { skip }, async (t) => {
  const keyPrefix = prefix()
  const a = createRedisCounterStore({ url: REDIS_URL, keyPrefix, onError: (e) => t.fail(String(e)) })
  const b = createRedisCounterStore({ url: REDIS_URL, keyPrefix, onError: (e) => t.fail(String(e)) })
  t.teardown(async () => {
    await a.close()
    await b.close()
  })
  const now = Date.parse('2026-11-23T10:00:30.000Z')
  t.same(await a.hit('ip:1', 60_000, now), { count: 1, resetAt: Date.parse('2026-11-23T10:01:00.000Z') })
  t.same((await b.hit('ip:1', 60_000, now + 1000)).count, 2, 'the other instance sees the first hit')
  const burst = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).hit('ip:1', 60_000, now + 2000)))
  t.same(burst.map((h) => h.count).sort((x, y) => x - y), Array.from({ length: 20 }, (_, i) => i + 3), 'concurrent hits are counted atomically')
  t.equal((await a.hit('ip:2', 60_000, now)).count, 1, 'keys apart')
  t.equal((await a.hit('ip:1', 3_600_000, now)).count, 1, 'windows apart')
  t.equal((await b.hit('ip:1', 60_000, now + 30_000)).count, 1, 'the next window starts at 1 (D24 fixed windows)')
})

t.test('a window key expires with its window', { skip }, async (t) => {
  const keyPrefix = prefix()
  const store = createRedisCounterStore({ url: REDIS_URL, keyPrefix, onError: (e) => t.fail(String(e)) })
  t.teardown(() => store.close())
  const now = Date.now()
  await store.hit('ip:ttl', 1000, now)
  const redis = new Redis(REDIS_URL)
  t.teardown(() => void redis.disconnect())
  const keys = await redis.keys(`${keyPrefix}*`)
  t.equal(keys.length, 1)
  const ttl = await redis.pttl(keys[0]!)
  t.ok(ttl > 0 && ttl <= 2000, `expires within the window plus a second of slack (${ttl} ms)`)
})

t.test('without Redis, hits are counted in process memory and the outage is reported', async (t) => {
  const errors: unknown[] = []
  // Port 1: nothing listens there.
  const store = createRedisCounterStore({ url: 'redis://127.0.0.1:1', keyPrefix: prefix(), onError: (e) => errors.push(e) })
  t.teardown(() => store.close())
  const now = Date.parse('2026-11-23T10:00:30.000Z')
  t.equal((await store.hit('ip:1', 60_000, now)).count, 1)
  t.equal((await store.hit('ip:1', 60_000, now)).count, 2, 'still limited, per process')
  t.ok(errors.length >= 2, 'each failed hit is reported')
})
