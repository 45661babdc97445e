// A query compiled once by prepare() binds new values on every call, on a real
// SQLite file: placeholders take the values given, an absent one binds NULL, and the query's
// own constants (a limit) stay where Kysely put them.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import t from 'tap'
import { createSqliteDatabase } from '../../../src/db/dialects/sqlite.js'
import { prepare, preparedQuery } from '../../../src/db/prepared.js'

t.test('prepare: values bound per call, absent values NULL, constants kept', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'records-prepared-'))
  const database = createSqliteDatabase({ file: join(dir, 'records.db') })
  t.teardown(async () => {
    await database.close()
    rmSync(dir, { recursive: true, force: true })
  })
  const { db } = database
  await sql`create table t (a text, b integer, c text)`.execute(db)

  const insert = prepare<'a' | 'b' | 'c'>((param) =>
    db.insertInto('t').values({ a: param('a'), b: param('b'), c: param('c') }),
  )
  await db.executeQuery(insert.bind({ a: 'uno', b: 1, c: 'x' }))
  await db.executeQuery(insert.bind({ a: 'dos', b: 2 }))
  await db.executeQuery(insert.bind({ a: 'tres', b: 3, c: '\u0000records-param:c' }))
  t.same(
    await db.selectFrom('t').selectAll().orderBy('b').execute(),
    [
      { a: 'uno', b: 1, c: 'x' },
      { a: 'dos', b: 2, c: null },
      { a: 'tres', b: 3, c: '\u0000records-param:c' },
    ],
    'each call its own values; an absent one NULL; a value that looks like a placeholder stored as it is',
  )

  const firstAbove = preparedQuery<'min'>((handle, param) =>
    handle.selectFrom('t').select('a').where('b', '>', param('min')).orderBy('b').limit(1),
  )
  t.same((await db.executeQuery(firstAbove(db).bind({ min: 1 }))).rows, [{ a: 'dos' }], 'limit 1 kept as a constant')
  t.equal(firstAbove(db), firstAbove(db), 'compiled once per dialect')
  const inTransaction = await db
    .transaction()
    .execute(async (trx) => (await trx.executeQuery(firstAbove(trx).bind({ min: 2 }))).rows)
  t.same(inTransaction, [{ a: 'tres' }], 'a transaction of the same database runs it too')
})
