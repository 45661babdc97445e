// The one seam of background work (STYLE.md section 10): timers, overlap, errors, stop; the
// claim of a job that runs on one instance (its lease on a real database: the integration test
// test/integration/multi-instance/one-instance-jobs.test.ts).
import t from 'tap'
import { startJobRunner, type Job } from '../../../src/app/job-runner.js'
import type { JobClaim, JobLease } from '../../../src/db/job-lease.js'
import { manualClock } from '../../helpers/job-clock.js'

const noError = (job: string, error: unknown) => {
  throw new Error(`unexpected failure of ${job}: ${String(error)}`)
}

function counting(name: string, everyMs: number): Job & { runs: 'every-instance'; count: () => number } {
  let count = 0
  return { name, runs: 'every-instance', everyMs, run: async () => void count++, count: () => count }
}

t.test('each job runs once per period, the first one period after the start; stop ends them all', async (t) => {
  const clock = manualClock()
  const fast = counting('fast', 10)
  const slow = counting('slow', 25)
  const runner = startJobRunner([fast, slow], { instanceId: 'a', clock, onError: noError })
  t.equal(fast.count(), 0, 'nothing runs at the start')
  await clock.advance(100, runner.settled)
  t.same([fast.count(), slow.count()], [10, 4])
  await runner.stop()
  t.equal(clock.timers, 0, 'no timer is left')
  await clock.advance(100, runner.settled)
  t.same([fast.count(), slow.count()], [10, 4], 'nothing runs after the stop')
})

t.test('a run still going when its next period comes is not doubled', async (t) => {
  const clock = manualClock()
  let started = 0
  let finish: () => void = () => undefined
  const job: Job = {
    name: 'slow',
    runs: 'every-instance',
    everyMs: 10,
    run: () => {
      started++
      return new Promise<void>((resolve) => (finish = resolve))
    },
  }
  const runner = startJobRunner([job], { instanceId: 'a', clock, onError: noError })
  await clock.advance(35)
  t.equal(started, 1, 'three periods passed, one run still going')
  finish()
  await runner.settled()
  await clock.advance(10)
  t.equal(started, 2, 'the next period after it ended runs again')
  finish()
  await runner.stop()
})

const tick = () => new Promise((resolve) => setImmediate(resolve))

t.test('stop waits for the runs in progress, then stops each job, last started first', async (t) => {
  const clock = manualClock()
  const events: string[] = []
  const finish = new Map<string, () => void>()
  const job = (name: string): Job => ({
    name,
    runs: 'every-instance',
    everyMs: 10,
    run: () => new Promise<void>((resolve) => finish.set(name, () => (events.push(`${name} ran`), resolve()))),
    stop: async () => void events.push(`${name} stopped`),
  })
  const runner = startJobRunner([job('first'), job('second')], { instanceId: 'a', clock, onError: noError })
  await clock.advance(10)
  const stopped = runner.stop()
  t.equal(runner.stop(), stopped, 'a second stop is the same stop')
  await tick()
  t.same(events, [], 'the stop waits for the runs in progress')
  finish.get('second')?.()
  await tick()
  t.same(events, ['second ran'], 'and for each of them')
  finish.get('first')?.()
  await stopped
  t.same(events, ['second ran', 'first ran', 'second stopped', 'first stopped'])
})

t.test(
  'a failed run is reported and the job runs again next period; a failed stop does not stop the others',
  async (t) => {
    const clock = manualClock()
    const errors: string[] = []
    let runs = 0
    let stops = 0
    const failing: Job = {
      name: 'failing',
      runs: 'every-instance',
      everyMs: 10,
      run: async () => {
        runs++
        throw new Error(`run ${runs}`)
      },
      stop: async () => {
        throw new Error('stop')
      },
    }
    const other: Job = { ...counting('other', 10), stop: async () => void stops++ }
    const runner = startJobRunner([other, failing], {
      instanceId: 'a',
      clock,
      onError: (job, error) => errors.push(`${job}: ${(error as Error).message}`),
    })
    await clock.advance(20, runner.settled)
    await runner.stop()
    t.same(errors, ['failing: run 1', 'failing: run 2', 'failing: stop'])
    t.equal(stops, 1, 'the other job was stopped after the failed stop')
  },
)

t.test('a job that runs on one instance claims its period first and runs only when it wins it', async (t) => {
  t.throws(
    () =>
      startJobRunner([{ name: 'x', runs: 'one-instance', everyMs: 10, run: async () => undefined }], {
        instanceId: 'a',
        onError: noError,
      }),
    /needs a lease/,
  )
  const clock = manualClock(1_000)
  const claims: JobClaim[] = []
  const released: [number, number][] = []
  // Wins the even periods only: the decision is the lease's (the real one: db/job-lease.ts).
  const lease: JobLease = {
    claim: async (claim) => (claims.push(claim), claim.period % 2 === 0),
    release: async (claim, now) => void released.push([claim.period, now]),
  }
  let ran: number[] = []
  const job: Job = {
    name: 'retention',
    runs: 'one-instance',
    everyMs: 100,
    leaseMs: 50,
    run: async () => {
      ran.push(clock.now())
      if (ran.length === 2) throw new Error('failed run')
    },
  }
  const errors: unknown[] = []
  const runner = startJobRunner([job], { instanceId: 'b', lease, clock, onError: (_, e) => errors.push(e) })
  await clock.advance(400, runner.settled)
  t.same(
    claims.map((c) => [c.job, c.period, c.instanceId, c.now, c.leaseMs]),
    [11, 12, 13, 14].map((period) => ['retention', period, 'b', period * 100, 50]),
  )
  t.same(ran, [1_200, 1_400], 'ran in the periods it won')
  t.same(
    released,
    [
      [12, 1_200],
      [14, 1_400],
    ],
    'and released each, the failed run too',
  )
  t.equal(errors.length, 1)
  ran = []
  await runner.stop()
  await clock.advance(400, runner.settled)
  t.same(ran, [])
})

t.test(
  'a period longer than the timer: looked at every everyMs, claimed once per periodMs (D41 daily run)',
  async (t) => {
    const clock = manualClock(0)
    const claimed = new Set<number>()
    // As db/job-lease.ts: a period is won once, by the first claim.
    const lease: JobLease = {
      claim: async ({ period }) => !claimed.has(period) && Boolean(claimed.add(period)),
      release: async () => undefined,
    }
    const ran: number[] = []
    const job: Job = {
      name: 'retention-run',
      runs: 'one-instance',
      everyMs: 10,
      periodMs: 100,
      run: async () => void ran.push(clock.now()),
    }
    const runner = startJobRunner([job], { instanceId: 'a', lease, clock, onError: noError })
    await clock.advance(250, runner.settled)
    t.same(ran, [10, 100, 200], 'the first look of each period runs it')
    await runner.stop()
    // A new start (a restart) in the middle of a period runs at its first look if nobody did yet.
    const again = startJobRunner([job], { instanceId: 'a', lease, clock, onError: noError })
    await clock.advance(40, again.settled)
    t.same(ran, [10, 100, 200], 'period 2 was taken before the restart')
    await clock.advance(20, again.settled)
    t.same(ran, [10, 100, 200, 300], 'period 3 at its first look after the restart')
    await again.stop()
  },
)
