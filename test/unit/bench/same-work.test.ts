// The same-work stack's own parts (scripts/bench/same-work.ts): its rate limits count and refuse
// as the service's two limits do, and its consultation log loses no entry and hides no failure.
// Not a speed test: the bench measures speed.
import t from 'tap'
import {
  ANSWER_HEADERS,
  createConsultationLog,
  createRateLimits,
  type Consultation,
} from '../../../scripts/bench/same-work.js'

t.test('every answer carries no-store and the security headers', async (t) => {
  t.equal(ANSWER_HEADERS['cache-control'], 'no-store')
  t.equal(ANSWER_HEADERS['x-content-type-options'], 'nosniff')
  t.notMatch(ANSWER_HEADERS['content-security-policy'] ?? '', /upgrade-insecure-requests/)
})

t.test('the tighter of the two limits is counted, shown and enforced', async (t) => {
  let now = 0
  const limits = createRateLimits(3, 5, () => now)
  t.same(limits('a', 'tok').headers, {
    'x-ratelimit-limit': '3',
    'x-ratelimit-remaining': '2',
    'x-ratelimit-reset': '60',
  })
  limits('a', 'tok')
  limits('a', 'tok')
  t.equal(limits('a', 'tok').headers, undefined, 'the address over its minute: refused')
  t.same(
    limits('b', 'tok').headers,
    { 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '1', 'x-ratelimit-reset': '3600' },
    "another address: the token's hour is the tighter",
  )
  now = 60_000
  t.equal(limits('c', 'tok').headers?.['x-ratelimit-remaining'], '0', "the token's last request of the hour")
  t.equal(limits('d', 'tok').headers, undefined, "the token's hour spent: refused from any address")
  t.equal(limits('a', 'other').headers?.['x-ratelimit-remaining'], '2', 'a new minute for the address')
})

const entry = (n: number): Consultation => ({
  at: `t${n}`,
  userId: 'u',
  module: 'denuncias',
  recordId: `DEN-2026-0000${n}`,
  version: 1,
  fields: [],
  address: '127.0.0.1',
  requestId: `r${n}`,
})

t.test('the consultation log writes every entry in order, in batches', async (t) => {
  const batches: string[][] = []
  const log = createConsultationLog(async (entries) => void batches.push(entries.map((e) => e.requestId)), {
    maxBatch: 2,
    maxDelayMs: 60_000,
  })
  for (const n of [1, 2, 3]) log.record(entry(n))
  await log.flush()
  t.same(batches, [['r1', 'r2'], ['r3']], 'a full batch at once, the rest on flush')
})

t.test('a batch the database refuses stops the log: the next read is not served unlogged', async (t) => {
  const log = createConsultationLog(
    async () => {
      throw new Error('SQLITE_FULL')
    },
    { maxBatch: 1 },
  )
  log.record(entry(1))
  await t.rejects(log.flush(), /SQLITE_FULL/)
  t.throws(() => log.record(entry(2)), /SQLITE_FULL/)
})
