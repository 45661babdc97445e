// The bench's lock-wait sampler sees lock waits it provokes itself on the test
// PostgreSQL: one connection holds a row lock (then an advisory lock), another waits for it;
// while it waits, every poll finds exactly one active backend, and it is waiting on that lock.
import pg from 'pg'
import t from 'tap'
import { sharesOf, startLockWaitSampler } from '../../../scripts/bench/lock-waits.js'
import { createTestDatabase, ON_POSTGRES, urlOf } from '../../helpers/postgres.js'

const connect = async (url: string): Promise<pg.Client> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  return client
}

/** Waits until `pid`'s backend shows wait_event `event` (a lock wait has begun). */
async function waitingOn(observer: pg.Client, pid: number, event: string): Promise<void> {
  for (;;) {
    const result = await observer.query(
      `select 1 from pg_stat_activity where pid = $1 and state = 'active' and wait_event_type = 'Lock' and wait_event = $2`,
      [pid, event],
    )
    if (result.rowCount === 1) return
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

t.test(
  'the sampler counts a waiting backend as a row-lock, then an advisory-lock, wait',
  { skip: ON_POSTGRES ? false : 'needs PostgreSQL: runs in the PostgreSQL pass (npm run test:postgres)' },
  async (t) => {
    const url = urlOf(await createTestDatabase())
    const holder = await connect(url)
    const waiter = await connect(url)
    const observer = await connect(url)
    t.teardown(async () => {
      await Promise.all([holder.end(), waiter.end(), observer.end()])
    })
    const waiterPid = (await waiter.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]?.pid as number
    await holder.query('create table counter (id int primary key, n int not null)')
    await holder.query('insert into counter values (1, 0)')

    // A row lock: the holder's transaction updated the row and has not committed.
    await holder.query('begin')
    await holder.query('update counter set n = n + 1 where id = 1')
    const blocked = waiter.query('update counter set n = n + 1 where id = 1')
    await waitingOn(observer, waiterPid, 'transactionid')
    let sampler = await startLockWaitSampler(url, 1)
    await new Promise((resolve) => setTimeout(resolve, 50))
    const rowTally = await sampler.stop()
    await holder.query('commit')
    await blocked
    t.ok(rowTally.polls >= 1, 'at least one poll')
    t.equal(
      rowTally.active,
      rowTally.polls,
      'one active backend per poll: the waiter (the holder is idle in transaction)',
    )
    t.equal(rowTally.row, rowTally.active, 'every active sample waits on the row lock')
    t.equal(sharesOf(rowTally).lock, 1)
    t.equal(sharesOf(rowTally).advisory, 0)
    t.same(Object.keys(rowTally.waitingIn), ['update counter set n = n + 1 where id = 1'], 'the waiting statement')

    // An advisory lock: the holder's session holds it.
    await holder.query('select pg_advisory_lock(17)')
    const advisoryBlocked = waiter.query('select pg_advisory_lock(17)')
    await waitingOn(observer, waiterPid, 'advisory')
    sampler = await startLockWaitSampler(url, 1)
    await new Promise((resolve) => setTimeout(resolve, 50))
    const advisoryTally = await sampler.stop()
    await holder.query('select pg_advisory_unlock(17)')
    await advisoryBlocked
    await waiter.query('select pg_advisory_unlock(17)')
    t.ok(advisoryTally.polls >= 1)
    t.equal(advisoryTally.advisory, advisoryTally.active, 'every active sample waits on the advisory lock')
    t.equal(advisoryTally.row, 0)
    t.same(Object.keys(advisoryTally.waitingIn), ['select pg_advisory_lock(17)'])
    t.equal(sharesOf(advisoryTally).lock, 1)
    t.equal(
      (await observer.query<{ n: number }>('select n from counter where id = 1')).rows[0]?.n,
      2,
      'both updates went through once the lock was released',
    )
  },
)
