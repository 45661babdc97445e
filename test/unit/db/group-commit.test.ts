// D48: record writes on SQLite that ask in the same turn of the event loop share one
// transaction (one WAL sync); each is answered after that commit; one that fails is rolled back
// to its savepoint and fails alone; if SQLite ends the transaction itself, none of the group is
// kept. On a real SQLite file, with a second connection looking from outside as another
// process would.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { sql } from 'kysely'
import t, { type Test } from 'tap'
import type { Database, Db } from '../../../src/db/database.js'
import { createSqliteDatabase } from '../../../src/db/dialects/sqlite.js'
import { inWriteTransaction, MAX_GROUP } from '../../../src/db/group-commit.js'

async function open(t: Test): Promise<{ database: Database; outside: BetterSqlite3.Database }> {
  const dir = mkdtempSync(join(tmpdir(), 'records-group-commit-'))
  const file = join(dir, 'records.db')
  const database = createSqliteDatabase({ file })
  await sql`create table t (name text primary key)`.execute(database.db)
  const outside = new BetterSqlite3(file, { readonly: true })
  t.teardown(async () => {
    outside.close()
    await database.close()
    rmSync(dir, { recursive: true, force: true })
  })
  return { database, outside }
}

const insert = (trx: Db, name: string) => sql`insert into t (name) values (${name})`.execute(trx)
const names = async (db: Db) =>
  (await sql<{ name: string }>`select name from t order by name`.execute(db)).rows.map((r) => r.name)
const outsideCount = (outside: BetterSqlite3.Database) =>
  (outside.prepare('select count(*) as n from t').get() as { n: number }).n

t.test('D48: writes asked together share one transaction, each answered after its commit', async (t) => {
  const { database, outside } = await open(t)
  const answered: string[] = []
  const seen: { name: string; inside: number; fromOutside: number }[] = []
  const onDiskWhenAnswered: number[] = []
  const write = (name: string) =>
    inWriteTransaction(database, async (trx) => {
      await insert(trx, name)
      seen.push({
        name,
        inside: (await names(trx)).length,
        fromOutside: outsideCount(outside),
      })
      return name
    }).then((value) => {
      answered.push(value)
      onDiskWhenAnswered.push(outsideCount(outside))
      return value
    })
  const results = await Promise.all(['a', 'b', 'c'].map(write))
  t.same(results, ['a', 'b', 'c'], 'each caller gets its own result')
  t.same(
    seen.map((s) => s.inside),
    [1, 2, 3],
    'each write sees the ones before it in the same transaction',
  )
  t.same(
    seen.map((s) => s.fromOutside),
    [0, 0, 0],
    'no write was committed (so none answered) before the last of the group ran',
  )
  t.same(onDiskWhenAnswered, [3, 3, 3], 'each was on disk, with the others, when its caller heard of it')
  t.same(answered, ['a', 'b', 'c'])

  const later = await write('d')
  t.equal(later, 'd', 'a write asked after the group commits in a transaction of its own')
  t.same(await names(database.db), ['a', 'b', 'c', 'd'])
})

t.test('D48: a write that fails is undone alone; the others of its group commit', async (t) => {
  const { database, outside } = await open(t)
  await insert(database.db, 'taken')
  const attempts = await Promise.allSettled([
    inWriteTransaction(database, (trx) => insert(trx, 'a')),
    inWriteTransaction(database, async (trx) => {
      await insert(trx, 'half')
      throw new Error('la regla del módulo lo rechaza')
    }),
    inWriteTransaction(database, async (trx) => {
      await insert(trx, 'other-half')
      await insert(trx, 'taken')
    }),
    inWriteTransaction(database, (trx) => insert(trx, 'b')),
  ])
  t.same(
    attempts.map((a) => a.status),
    ['fulfilled', 'rejected', 'rejected', 'fulfilled'],
  )
  t.match((attempts[1] as PromiseRejectedResult).reason, { message: 'la regla del módulo lo rechaza' })
  t.match(
    (attempts[2] as PromiseRejectedResult).reason,
    { code: 'SQLITE_CONSTRAINT_PRIMARYKEY' },
    'a constraint error reaches its own caller, as the driver gave it',
  )
  t.same(await names(database.db), ['a', 'b', 'taken'], 'nothing of the failed writes stays, not even their first rows')
  t.equal(outsideCount(outside), 3)
})

t.test(
  'D48: a refused write is answered only after its group committed; if the group fails, with its cause',
  async (t) => {
    const { database, outside } = await open(t)
    // B's conflict rests on A's value, which is only certain once A is committed.
    const committedWhenRefused: number[] = []
    const refused = (write: Promise<unknown>) =>
      write.catch((error: unknown) => {
        committedWhenRefused.push(outsideCount(outside))
        throw error
      })
    const attempts = await Promise.allSettled([
      inWriteTransaction(database, (trx) => insert(trx, 'x')),
      refused(inWriteTransaction(database, (trx) => insert(trx, 'x'))),
    ])
    t.same(
      attempts.map((a) => a.status),
      ['fulfilled', 'rejected'],
    )
    t.same(committedWhenRefused, [1], 'the conflict was answered once the value it met was on disk')

    // The same conflict in a group that then fails: the value it met is gone, so is its 409.
    const ended = new Error('disk I/O error')
    const failedGroup = await Promise.allSettled([
      inWriteTransaction(database, (trx) => insert(trx, 'y')),
      inWriteTransaction(database, (trx) => insert(trx, 'y')),
      inWriteTransaction(database, async (trx) => {
        await sql`rollback`.execute(trx)
        throw ended
      }),
    ])
    t.same(
      failedGroup.map((a) => (a.status === 'rejected' ? a.reason : a.status)),
      [ended, ended, ended],
      "the refused write gets the group's cause, not a conflict with a value never kept",
    )
    t.same(await names(database.db), ['x'])
  },
)

t.test('D48: when SQLite ends the transaction itself, no write of the group is kept', async (t) => {
  const { database, outside } = await open(t)
  // SQLite rolls a whole transaction back by itself on some errors (a full disk, an I/O error);
  // `rollback` in the write does exactly that, and the write then fails with its error.
  const ended = new Error('database or disk is full')
  const attempts = await Promise.allSettled([
    inWriteTransaction(database, (trx) => insert(trx, 'before')),
    inWriteTransaction(database, async (trx) => {
      await insert(trx, 'failing')
      await sql`rollback`.execute(trx)
      throw ended
    }),
    inWriteTransaction(database, (trx) => insert(trx, 'after')),
  ])
  t.same(
    attempts.map((a) => (a.status === 'rejected' ? a.reason : a.status)),
    [ended, ended, ended],
    'the write already run, the failing one and the one not run yet all fail with the cause',
  )
  t.same(await names(database.db), [], 'none is kept')
  t.equal(outsideCount(outside), 0)
  t.equal(
    await inWriteTransaction(database, (trx) => insert(trx, 'next')).then(() => 'ok'),
    'ok',
    'the next group writes',
  )
  t.same(await names(database.db), ['next'])
})

t.test('D48: a group holds at most MAX_GROUP writes; the rest form the next', async (t) => {
  const { database, outside } = await open(t)
  const committedBefore: number[] = []
  const all = Array.from({ length: MAX_GROUP + 6 }, (_, i) =>
    inWriteTransaction(database, async (trx) => {
      committedBefore[i] = outsideCount(outside)
      await insert(trx, `r${i}`)
    }),
  )
  await Promise.all(all)
  t.equal(committedBefore[MAX_GROUP - 1], 0, 'the first MAX_GROUP share the first transaction')
  t.equal(committedBefore[MAX_GROUP], MAX_GROUP, 'the next begins after the first group committed')
  t.equal(committedBefore[MAX_GROUP + 5], MAX_GROUP, 'and the rest share it')
  t.equal(outsideCount(outside), MAX_GROUP + 6)
})

// D49: a write that is seldom refused inside its transaction (a create) runs without a savepoint;
// should it fail after all, the group is rolled back whole and runs again with a savepoint per write.
const bare = { withoutSavepoint: true }

t.test('D49: writes without a savepoint share the transaction and are answered after its commit', async (t) => {
  const { database, outside } = await open(t)
  const seenFromOutside: number[] = []
  const statements: string[] = []
  const results = await Promise.all(
    ['a', 'b', 'c'].map((name) =>
      inWriteTransaction(
        database,
        async (trx) => {
          await insert(trx, name)
          seenFromOutside.push(outsideCount(outside))
          return name
        },
        bare,
      ).then((value) => {
        statements.push(`${value}:${outsideCount(outside)}`)
        return value
      }),
    ),
  )
  t.same(results, ['a', 'b', 'c'])
  t.same(seenFromOutside, [0, 0, 0], 'none committed while the group ran')
  t.same(statements, ['a:3', 'b:3', 'c:3'], 'each answered once all three were on disk')
})

t.test('D49: a write without a savepoint that fails: the group runs again, and it fails alone', async (t) => {
  const { database, outside } = await open(t)
  await insert(database.db, 'taken')
  const runs = new Map<string, number>()
  const counted = (name: string, work: (trx: Db) => Promise<unknown>) => (trx: Db) => {
    runs.set(name, (runs.get(name) ?? 0) + 1)
    return work(trx)
  }
  const attempts = await Promise.allSettled([
    inWriteTransaction(
      database,
      counted('a', (trx) => insert(trx, 'a')),
      bare,
    ),
    inWriteTransaction(
      database,
      counted('conflict', async (trx) => {
        await insert(trx, 'half')
        await insert(trx, 'taken')
      }),
      bare,
    ),
    inWriteTransaction(
      database,
      counted('b', (trx) => insert(trx, 'b')),
      bare,
    ),
    inWriteTransaction(
      database,
      counted('c', (trx) => insert(trx, 'c')),
    ),
  ])
  t.same(
    attempts.map((a) => a.status),
    ['fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
  )
  t.match(
    (attempts[1] as PromiseRejectedResult).reason,
    { code: 'SQLITE_CONSTRAINT_PRIMARYKEY' },
    'the failed write gets its own error, as the driver gave it',
  )
  t.same(
    await names(database.db),
    ['a', 'b', 'c', 'taken'],
    'nothing of the failed write stays, not even its first row',
  )
  t.equal(outsideCount(outside), 4, 'and nothing of the first run stays twice')
  t.same(
    Object.fromEntries(runs),
    { a: 2, conflict: 2, b: 1, c: 1 },
    'the writes before the failure ran again; those after it ran once, in the second run',
  )
})

t.test('D49: a write in a savepoint that fails does not make the group run again', async (t) => {
  const { database } = await open(t)
  let runs = 0
  const attempts = await Promise.allSettled([
    inWriteTransaction(
      database,
      async (trx) => {
        runs += 1
        await insert(trx, 'a')
      },
      bare,
    ),
    inWriteTransaction(database, async (trx) => {
      await insert(trx, 'half')
      throw new Error('If-Match no coincide')
    }),
    inWriteTransaction(database, (trx) => insert(trx, 'b'), bare),
  ])
  t.same(
    attempts.map((a) => a.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  )
  t.equal(runs, 1, 'undone to its savepoint; the others ran once')
  t.same(await names(database.db), ['a', 'b'])
})

t.test('D49: a write refused only the first time commits in the second run', async (t) => {
  const { database } = await open(t)
  let tries = 0
  const attempts = await Promise.allSettled([
    inWriteTransaction(database, (trx) => insert(trx, 'a'), bare),
    inWriteTransaction(
      database,
      async (trx) => {
        tries += 1
        await insert(trx, 'flaky')
        if (tries === 1) throw new Error('ocupado')
      },
      bare,
    ),
  ])
  t.same(
    attempts.map((a) => a.status),
    ['fulfilled', 'fulfilled'],
  )
  t.same(await names(database.db), ['a', 'flaky'])
})

t.test('D49: when SQLite ends the transaction under a write without a savepoint, none is kept', async (t) => {
  const { database, outside } = await open(t)
  const ended = new Error('database or disk is full')
  const attempts = await Promise.allSettled([
    inWriteTransaction(database, (trx) => insert(trx, 'before'), bare),
    inWriteTransaction(
      database,
      async (trx) => {
        await insert(trx, 'failing')
        await sql`rollback`.execute(trx)
        throw ended
      },
      bare,
    ),
    inWriteTransaction(database, (trx) => insert(trx, 'after'), bare),
  ])
  t.same(
    attempts.map((a) => (a.status === 'rejected' ? a.reason : a.status)),
    [ended, ended, ended],
    'every write of the group fails with the cause',
  )
  t.same(await names(database.db), [], 'none is kept')
  t.equal(outsideCount(outside), 0)
  t.equal(
    await inWriteTransaction(database, (trx) => insert(trx, 'next'), bare).then(() => 'ok'),
    'ok',
    'the next group writes',
  )
})
