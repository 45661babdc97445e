// STYLE.md section 10, background work: a job that runs on one instance (retention, fixity) runs
// once per period however many instances share the database. Two job runners, each on its own
// connection to one database (SQLite: one file; PostgreSQL: one database), tick on one manual
// clock: their claims of a period race and exactly one wins; a run that outlasts its period
// holds the job until it ends or its lease runs out.
import { EventEmitter, on } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { startJobRunner, type Job, type JobRunner } from '../../../src/app/job-runner.js'
import { createDatabase } from '../../../src/db/connect.js'
import type { Database } from '../../../src/db/database.js'
import { createJobLease } from '../../../src/db/job-lease.js'
import { ensureSystemTables } from '../../../src/db/system-tables.js'
import { manualClock } from '../../helpers/job-clock.js'
import { createTestDatabase, ON_POSTGRES, urlOf } from '../../helpers/postgres.js'

/** Two connections to one fresh database, closed when `t` ends. */
async function sharedDatabase(t: Test): Promise<[Database, Database]> {
  let url: string
  if (ON_POSTGRES) url = urlOf(await createTestDatabase())
  else {
    const dir = mkdtempSync(join(tmpdir(), 'records-jobs-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    url = `sqlite:${join(dir, 'records.db')}`
  }
  const first = await createDatabase(url)
  await ensureSystemTables(first)
  const second = await createDatabase(url)
  t.teardown(async () => {
    await first.close()
    await second.close()
  })
  return [first, second]
}

const failOnError = (t: Test) => (job: string, error: unknown) => t.fail(`${job} failed: ${String(error)}`)

t.test(
  `two runners on one database run a one-instance job once per period (${ON_POSTGRES ? 'PostgreSQL' : 'SQLite'})`,
  async (t) => {
    const databases = await sharedDatabase(t)
    const clock = manualClock(0)
    const runs: { instance: string; at: number }[] = []
    const job = (instance: string): Job => ({
      name: 'retention',
      runs: 'one-instance',
      everyMs: 1_000,
      run: async () => void runs.push({ instance, at: clock.now() }),
    })
    const runner = (instance: string, database: Database) =>
      startJobRunner([job(instance)], {
        instanceId: instance,
        lease: createJobLease(database),
        clock,
        onError: failOnError(t),
      })
    const runners: JobRunner[] = []
    const settle = async () => void (await Promise.all(runners.map((runner) => runner.settled())))
    runners.push(runner('a', databases[0]))
    // Both timers fire at the same instants: every claim races the other instance's.
    runners.push(runner('b', databases[1]))
    await clock.advance(10_000, settle)
    t.same(
      runs.map((run) => run.at),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((second) => second * 1_000),
      'one run per period',
    )
    // A third runner whose timer is out of phase with theirs (started 300 ms later) changes nothing.
    await clock.advance(300, settle)
    runners.push(runner('c', databases[1]))
    runs.length = 0
    await clock.advance(5_000, settle)
    t.same(
      runs.map((run) => Math.floor(run.at / 1_000)),
      [11, 12, 13, 14, 15],
      'still one run per period, whichever instance ticks first in it',
    )
    const row = await databases[0].db.selectFrom('_job_runs').selectAll().executeTakeFirstOrThrow()
    t.equal(Number(row['period']), 15, 'the row names the last period claimed')
    t.equal(row['instance_id'], runs.at(-1)?.instance, 'and who claimed it')
    for (const runner of runners) await runner.stop()
  },
)

/**
 * Waits (up to 5 s) for `condition`, checked as each run starts (`starts` emits 'run'): a run
 * that never ends cannot be awaited.
 */
async function until(starts: EventEmitter, condition: () => boolean): Promise<void> {
  const deadline = new AbortController()
  const timer = setTimeout(() => deadline.abort(), 5_000)
  try {
    // on() queues the runs that start while a check is under way: none is missed.
    if (!condition()) for await (const _ of on(starts, 'run', { signal: deadline.signal })) if (condition()) return
  } catch (error) {
    if (!deadline.signal.aborted) throw error // after 5 s the test's own check says what is missing
  } finally {
    clearTimeout(timer)
  }
}

t.test('a run that outlasts its period holds the job until it ends or its lease runs out', async (t) => {
  const databases = await sharedDatabase(t)
  const clock = manualClock(0)
  const runs: string[] = []
  const starts = new EventEmitter()
  const finish = new Map<string, () => void>()
  const job = (instance: string): Job => ({
    name: 'fixity',
    runs: 'one-instance',
    everyMs: 1_000,
    leaseMs: 2_500,
    run: () => {
      runs.push(`${instance}@${clock.now()}`)
      starts.emit('run')
      return new Promise<void>((resolve) => finish.set(instance, resolve))
    },
  })
  const runner = (instance: string, database: Database) =>
    startJobRunner([job(instance)], {
      instanceId: instance,
      lease: createJobLease(database),
      clock,
      onError: failOnError(t),
    })
  const a = runner('a', databases[0])
  await clock.advance(400)
  const b = runner('b', databases[1])
  // a claims period 1 at 1000 (lease until 3500) and does not finish.
  await clock.advance(600)
  await until(starts, () => runs.length === 1)
  // b's ticks at 1400, 2400 and 3400 find the job held.
  await clock.advance(3_000, () => b.settled())
  t.same(runs, ['a@1000'], 'held while the run goes on, within its lease')
  // At 4400 a's lease has run out: a run that long is presumed dead.
  await clock.advance(400)
  await until(starts, () => runs.length === 2)
  t.same(runs, ['a@1000', 'b@4400'], 'after the lease another instance takes a later period')
  finish.get('b')?.()
  await b.settled()
  finish.get('a')?.()
  await a.settled()
  // b released period 4 when its run ended: a's tick at 5000 takes period 5 at once.
  await clock.advance(600)
  await until(starts, () => runs.length === 3)
  // b's tick at 5400 finds period 5 taken.
  await clock.advance(400, () => b.settled())
  t.same(runs, ['a@1000', 'b@4400', 'a@5000'], 'a released run frees the job for the next period')
  finish.get('a')?.()
  await a.stop()
  await b.stop()
})
