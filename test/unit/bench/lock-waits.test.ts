// The lock-wait share the bench prints is lock-waiting active samples over
// active samples, split by what the backends wait for.
import t from 'tap'
import {
  EMPTY_TALLY,
  addPoll,
  formatShares,
  latencyShare,
  topWaiting,
  mergeTallies,
  sharesOf,
  type ActivityRow,
} from '../../../scripts/bench/lock-waits.js'

const row = (
  state: string | null,
  waitEventType: string | null = null,
  waitEvent: string | null = null,
): ActivityRow => ({
  state,
  waitEventType,
  waitEvent,
})

t.test('each active backend of a poll is one sample, classified by its wait', async (t) => {
  const tally = addPoll(EMPTY_TALLY, [
    row('active'), // running
    row('active', 'Lock', 'transactionid'), // row lock
    row('active', 'Lock', 'tuple'), // row lock
    row('active', 'Lock', 'advisory'),
    row('active', 'Lock', 'relation'), // another heavyweight lock
    row('active', 'LWLock', 'WALWrite'), // not a lock wait in this sense
    row('active', 'IO', 'WALSync'),
    row('idle in transaction', 'Client', 'ClientRead'), // holds locks, waits for its client: not active
    row('idle', 'Client', 'ClientRead'),
    row(null),
  ])
  t.same(tally, { polls: 1, active: 7, row: 2, advisory: 1, otherLock: 1, waitingIn: { '?': 4 } })
})

t.test('shares are over active samples; active backends per poll over polls', async (t) => {
  let tally = EMPTY_TALLY
  // 4 polls: 20 active samples, 11 on row locks, 2 advisory, 1 other.
  tally = addPoll(tally, [
    row('active', 'Lock', 'transactionid'),
    row('active', 'Lock', 'transactionid'),
    row('active'),
  ])
  tally = addPoll(tally, [row('active', 'Lock', 'tuple'), row('active', 'Lock', 'advisory'), row('active')])
  tally = addPoll(tally, [row('idle')])
  tally = addPoll(tally, [
    ...Array.from({ length: 8 }, () => row('active', 'Lock', 'transactionid')),
    row('active', 'Lock', 'advisory'),
    row('active', 'Lock', 'extend'),
    row('active'),
    row('active'),
    row('active'),
    row('active'),
  ])
  t.same({ ...tally, waitingIn: {} }, { polls: 4, active: 20, row: 11, advisory: 2, otherLock: 1, waitingIn: {} })
  const shares = sharesOf(tally)
  t.equal(shares.lock, 14 / 20)
  t.equal(shares.row, 11 / 20)
  t.equal(shares.advisory, 2 / 20)
  t.equal(shares.otherLock, 1 / 20)
  t.equal(shares.activePerPoll, 5)
  t.equal(
    formatShares(tally),
    '70% of active backend time (row 55%, advisory 10%, other locks 5%; 5.0 active backends, 4 polls)',
  )
  // 14 lock-waiting samples over 4 polls: 3.5 waiting backends; with 10 requests in flight, 35% of their latency.
  t.equal(latencyShare(tally, 10), 0.35)
  t.equal(
    formatShares(tally, 10),
    '70% of active backend time (row 55%, advisory 10%, other locks 5%; 5.0 active backends, 4 polls); ' +
      '35% of request latency (3.5 waiting backends / 10 in flight)',
  )
})

t.test('rounds pool their samples; no active sample means no share, not 0%', async (t) => {
  const a = addPoll(EMPTY_TALLY, [row('active', 'Lock', 'transactionid'), row('active')])
  const b = addPoll(addPoll(EMPTY_TALLY, [row('active')]), [row('active')])
  t.same(mergeTallies(a, b), { polls: 3, active: 4, row: 1, advisory: 0, otherLock: 0, waitingIn: { '?': 1 } })
  t.equal(sharesOf(mergeTallies(a, b)).lock, 0.25, 'pooled, not the mean of 50% and 0%')
  const idle = addPoll(EMPTY_TALLY, [row('idle')])
  t.ok(Number.isNaN(sharesOf(idle).lock))
  t.ok(Number.isNaN(sharesOf(EMPTY_TALLY).activePerPoll))
  t.ok(Number.isNaN(latencyShare(EMPTY_TALLY, 10)), 'no poll, no share')
  t.ok(Number.isNaN(latencyShare(idle, 0)), 'nothing in flight, no share')
  t.equal(latencyShare(idle, 10), 0, 'polls that saw no wait: 0%')
  t.match(
    formatShares(idle),
    /^- of active backend time \(row -, advisory -, other locks -; 0\.0 active backends, 1 polls\)$/,
  )
})

t.test('lock-waiting samples are counted by statement, spaces collapsed, most waited first', async (t) => {
  const upsert =
    'insert into _sequences (name, value)\n    values ($1, 1) on conflict (name) do update set value = _sequences.value + 1'
  const lock = 'select pg_advisory_xact_lock($1)'
  let tally = addPoll(EMPTY_TALLY, [
    { state: 'active', waitEventType: 'Lock', waitEvent: 'transactionid', query: upsert },
    { state: 'active', waitEventType: 'Lock', waitEvent: 'transactionid', query: upsert },
    { state: 'active', waitEventType: 'Lock', waitEvent: 'advisory', query: lock },
    { state: 'active', waitEventType: null, waitEvent: null, query: 'select 1' }, // not waiting: not counted
  ])
  tally = mergeTallies(
    tally,
    addPoll(EMPTY_TALLY, [{ state: 'active', waitEventType: 'Lock', waitEvent: 'transactionid', query: upsert }]),
  )
  const collapsed = upsert.replace(/\s+/g, ' ')
  t.same(tally.waitingIn, { [collapsed]: 3, [lock]: 1 })
  t.same(topWaiting(tally, 1), [{ statement: collapsed, share: 0.75 }])
  t.same(topWaiting(tally, 5), [
    { statement: collapsed, share: 0.75 },
    { statement: lock, share: 0.25 },
  ])
  const long = addPoll(EMPTY_TALLY, [
    { state: 'active', waitEventType: 'Lock', waitEvent: 'tuple', query: 'x'.repeat(300) },
  ])
  t.same(Object.keys(long.waitingIn), ['x'.repeat(200)], 'the first 200 characters')
})
