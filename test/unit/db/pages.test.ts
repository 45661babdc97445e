// Keyset paging (src/db/records/pages.ts): every row once, in key order, across page boundaries
// that fall inside a run of equal first keys; a full last page ends on the next, empty read; the
// caller may write between pages. On a real SQLite file.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import t from 'tap'
import { createSqliteDatabase } from '../../../src/db/dialects/sqlite.js'
import { keysetPages } from '../../../src/db/records/pages.js'

t.test('keysetPages: each row once, in the order of its keys, pages of the size asked', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'records-pages-'))
  const database = createSqliteDatabase({ file: join(dir, 'records.db') })
  t.teardown(async () => {
    await database.close()
    rmSync(dir, { recursive: true, force: true })
  })
  const { db } = database
  await sql`create table v (record_id text, version integer, other text, primary key (record_id, version))`.execute(db)
  // Inserted out of order: three records with 1, 4 and 2 versions, and one row of another kind.
  const rows = [
    ['B', 2],
    ['A', 1],
    ['B', 4],
    ['C', 1],
    ['B', 1],
    ['C', 2],
    ['B', 3],
  ].map(([record_id, version]) => ({ record_id, version, other: 'x' }))
  await db
    .insertInto('v')
    .values([...rows, { record_id: 'Z', version: 1, other: 'y' }])
    .execute()
  const select = () => db.selectFrom('v').selectAll().where('other', '=', 'x')
  const expected = ['A1', 'B1', 'B2', 'B3', 'B4', 'C1', 'C2']

  for (const size of [1, 2, 3, 7, 100]) {
    const pages: string[][] = []
    for await (const page of keysetPages(select, ['record_id', 'version'], size))
      pages.push(page.map((r) => `${String(r['record_id'])}${String(r['version'])}`))
    t.same(pages.flat(), expected, `pages of ${size}: every row once, by record then version`)
    t.ok(
      pages.every((p, i) => p.length === (i < pages.length - 1 ? size : p.length) && p.length > 0),
      `pages of ${size}: full pages, then the rest; no empty page`,
    )
    t.equal(pages.length, Math.ceil(expected.length / size), `pages of ${size}: as many pages as the rows need`)
  }

  // Writes between pages that change no key: the paging goes on after the last row it handed out.
  let seen = 0
  for await (const page of keysetPages(select, ['record_id', 'version'], 2)) {
    seen += page.length
    for (const row of page)
      await db
        .updateTable('v')
        .set({ other: 'x' })
        .where('record_id', '=', row['record_id'] as string)
        .where('version', '=', row['version'] as number)
        .execute()
  }
  t.equal(seen, expected.length, 'rows updated between pages are read once')
})
