// The per-username login lock (issue #6): counts, doubling locks, reset on success, bounded memory.
import t from 'tap'
import { createLoginThrottle } from '../../../src/http/login-throttle.js'

const setup = (maxTracked?: number) => {
  let now = 0
  const throttle = createLoginThrottle({ maxFailures: 3, lockMs: 1000, clock: () => new Date(now), ...(maxTracked === undefined ? {} : { maxTracked }) })
  return { throttle, advance: (ms: number) => void (now += ms) }
}

t.test('locked after maxFailures in a row, for lockMs', async (t) => {
  const { throttle, advance } = setup()
  throttle.failed('ana')
  throttle.failed('ana')
  t.equal(throttle.waitMs('ana'), 0, 'two failures: not yet')
  throttle.failed('ana')
  t.equal(throttle.waitMs('ana'), 1000)
  t.equal(throttle.waitMs('luis'), 0, 'other usernames are free')
  advance(1000)
  t.equal(throttle.waitMs('ana'), 0, 'free when the lock ends')
})

t.test('each failure after a lock locks again, twice as long, up to 16x', async (t) => {
  const { throttle, advance } = setup()
  for (let i = 0; i < 3; i += 1) throttle.failed('ana')
  const waits: number[] = []
  for (let i = 0; i < 6; i += 1) {
    advance(throttle.waitMs('ana'))
    throttle.failed('ana')
    waits.push(throttle.waitMs('ana'))
  }
  t.same(waits, [2000, 4000, 8000, 16000, 16000, 16000])
})

t.test('a success clears the count', async (t) => {
  const { throttle } = setup()
  throttle.failed('ana')
  throttle.failed('ana')
  throttle.succeeded('ana')
  throttle.failed('ana')
  t.equal(throttle.waitMs('ana'), 0)
})

t.test('at most maxTracked usernames are kept: the oldest goes first', async (t) => {
  const { throttle } = setup(2)
  for (const name of ['a', 'b', 'c']) for (let i = 0; i < 3; i += 1) throttle.failed(name)
  t.equal(throttle.waitMs('a'), 0, 'a was forgotten')
  t.equal(throttle.waitMs('b'), 1000)
  t.equal(throttle.waitMs('c'), 1000)
})
