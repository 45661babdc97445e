// D24 on Redis: the rate limits' keys name their limiter, subject and window under
// `<REDIS_KEY_PREFIX>rate-limit:` (they used to read `rate-limit:undefinedundefined-ip:...`).
import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import t from 'tap'
import { startTestApi } from '../../helpers/api.js'

const REDIS_URL = process.env['RECORDS_TEST_REDIS_URL'] || 'redis://127.0.0.1:6379'

t.test('the rate-limit keys in Redis read rate-limit:<limiter>:<subject>@<window start>', async (t) => {
  const prefix = `records-test:${process.pid}:${randomBytes(4).toString('hex')}:`
  const api = await startTestApi(t, {
    clock: () => new Date('2026-11-23T10:00:30.000Z'),
    env: { REDIS_URL, REDIS_KEY_PREFIX: prefix },
  })
  t.equal((await api.request('GET', '/me')).status, 401)
  const redis = new Redis(REDIS_URL, { lazyConnect: true })
  await redis.connect()
  t.teardown(() => void redis.quit())
  const keys = await redis.keys(`${prefix}rate-limit:*`)
  t.teardown(async () => void (keys.length > 0 && (await redis.del(...keys))))
  t.ok(keys.length > 0, `keys: ${keys.join(', ')}`)
  for (const key of keys) {
    t.notMatch(key, /undefined/, `${key} names no missing route`)
    t.match(key, new RegExp(`^${prefix}rate-limit:(ip|token|docs):[^@]+@\\d+$`), `${key} names limiter and window`)
  }
  t.ok(
    keys.some(
      (key) => key.startsWith(`${prefix}rate-limit:ip:`) && key.endsWith(`@${Date.parse('2026-11-23T10:00:00Z')}`),
    ),
    'the per-address limiter of the current minute',
  )
})
