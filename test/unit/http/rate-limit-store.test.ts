// The per-process store that counts rate limits while Redis is away: counts per
// key and forgets a key when its time is up on the service's clock.
import t from 'tap'
import { clockStore } from '../../../src/http/rate-limit-store.js'

function setup() {
  let now = 0
  const store = new (clockStore(() => new Date(now)))()
  const incr = (key: string, ttl = 1000) =>
    new Promise<{ current: number; ttl: number }>((resolve) => store.incr(key, (_e, r) => resolve(r!), ttl, 10))
  const read = (key: string) =>
    new Promise<{ current: number; ttl: number }>((resolve) => store.read(key, (_e, r) => resolve(r!), 0))
  return { store, incr, read, advance: (ms: number) => void (now += ms) }
}

t.test('counts per key until the key expires on the service clock', async (t) => {
  const { incr, read, advance } = setup()
  t.same(await incr('ip:a@0'), { current: 1, ttl: 1000 })
  advance(400)
  t.same(await incr('ip:a@0'), { current: 2, ttl: 600 }, 'the same key counts on; its time runs from the first hit')
  t.same(await incr('ip:b@0'), { current: 1, ttl: 1000 }, 'keys apart')
  t.same(await read('ip:a@0'), { current: 2, ttl: 600 }, 'read does not count')
  advance(600)
  t.same(await read('ip:a@0'), { current: 0, ttl: 0 }, 'expired')
  t.same(await incr('ip:a@0'), { current: 1, ttl: 1000 }, 'an expired key starts over')
})

t.test('every limiter shares one map: their keys start with their names', async (t) => {
  const { store } = setup()
  t.equal(store.child({} as never), store)
})
