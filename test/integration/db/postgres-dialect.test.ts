// What the PostgreSQL dialect tells the engine (dialects/postgres.ts): unique
// violations by index name, busy errors, serialized writers, numbers as numbers, no password in logs.
import t from 'tap'
import { sql } from 'kysely'
import { createPostgresDatabase, redactUrl } from '../../../src/db/dialects/postgres.js'
import { createTestDatabase, IN_CI, postgresReachable, urlOf } from '../../helpers/postgres.js'

t.test('the location never shows the password', async (t) => {
  t.equal(redactUrl('postgres://app:s3cret@db.example:5432/records'), 'postgres://app:***@db.example:5432/records')
  t.equal(redactUrl('postgres://db.example/records'), 'postgres://db.example/records')
  t.equal(redactUrl('not a url'), 'postgres://…')
})

const reachable = await postgresReachable()
const skip = reachable ? false : 'POSTGRESQL IS NOT REACHABLE'
if (!reachable && IN_CI) t.fail('PostgreSQL is required in CI')

t.test('errors, locks and numbers', { skip }, async (t) => {
  const database = createPostgresDatabase({ url: urlOf(await createTestDatabase()), poolSize: 3 })
  t.teardown(() => database.close())
  const { db } = database
  await sql`create table t (id bigint, amount numeric, name text)`.execute(db)
  await sql`create unique index ux_t_name on t (name)`.execute(db)
  await db.insertInto('t').values({ id: 9007199254740991, amount: 90.55, name: 'a' }).execute()
  t.same(
    await db.selectFrom('t').selectAll().execute(),
    [{ id: 9007199254740991, amount: 90.55, name: 'a' }],
    'bigint and numeric come back as numbers',
  )

  const duplicate = await db
    .insertInto('t')
    .values({ id: 2, name: 'a' })
    .execute()
    .catch((e: unknown) => e)
  t.equal(database.uniqueViolation(duplicate), 'ux_t_name', 'a unique violation names its index')
  t.equal(database.uniqueViolation(new Error('x')), undefined)

  const timedOut = await db
    .transaction()
    .execute(async (trx) => {
      await sql`set local statement_timeout = 10`.execute(trx)
      await sql`select pg_sleep(1)`.execute(trx)
    })
    .catch((e: unknown) => e)
  t.ok(database.isBusy(timedOut), 'a statement timeout is busy (503), not a 500')
  t.ok(database.isBusy({ code: '40P01' }), 'a deadlock is busy')
  t.notOk(database.isBusy(duplicate), 'a unique violation is not')

  // Two writers of the audit tail: the second waits for the first to commit.
  const order: string[] = []
  let release!: () => void
  const held = new Promise<void>((resolve) => (release = resolve))
  let firstLocked!: () => void
  const locked = new Promise<void>((resolve) => (firstLocked = resolve))
  const first = db.transaction().execute(async (trx) => {
    await database.lock(trx, 'audit')
    order.push('first locked')
    firstLocked()
    await held
    order.push('first commits')
  })
  await Promise.race([locked, first]) // the second starts once the first holds the lock
  const second = db.transaction().execute(async (trx) => {
    await database.lock(trx, 'audit')
    order.push('second locked')
  })
  await new Promise((resolve) => setTimeout(resolve, 300))
  release()
  await Promise.all([first, second])
  t.same(order, ['first locked', 'first commits', 'second locked'], 'the audit lock serializes writers')
})
