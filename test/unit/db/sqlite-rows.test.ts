// Rows built in JavaScript: for any column names and values, a reading statement
// answers what better-sqlite3's own row objects hold, with the same keys in the same order, on a
// real SQLite database. Names are arbitrary text (quotes, backslashes, line breaks, `${`,
// duplicates): none can be read as code. A `select *` whose table another connection changes
// (renamed away and made again in another column order) still names every value rightly.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import fc from 'fast-check'
import t, { type Test } from 'tap'
import {
  rowConstructor,
  rowSource,
  selectsStar,
  statementWithRowsBuiltInJs,
  type RowSource,
} from '../../../src/db/dialects/sqlite-rows.js'

const sourceOf = rowSource
const db = new BetterSqlite3(':memory:')
t.teardown(() => db.close())
const source = sourceOf(db)
const withRowsBuiltInJs = (statement: BetterSqlite3.Statement) => statementWithRowsBuiltInJs(source, statement.source)

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`
/** `select ? as "n0", ? as "n1", ...` */
const selectOf = (names: readonly string[]) => `select ${names.map((n) => `? as ${quoted(n)}`).join(', ')}`
const entries = (row: unknown) => Object.entries(row as Record<string, unknown>)

const name = fc.oneof(
  fc.string({ maxLength: 12 }).filter((n) => n !== '__proto__' && !n.includes('\0')),
  fc.constantFrom('_id', 'estado', 'a"b', "a'b", 'a\\b', '${x}', '`', '}); throw 1; ({', 'línea\nnueva', 'constructor'),
)
const value = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.constant(null),
  fc.uint8Array().map(Buffer.from),
)

t.test('a row is what better-sqlite3 builds: same keys, order and values', async (t) => {
  fc.assert(
    fc.property(fc.array(fc.tuple(name, value), { minLength: 1, maxLength: 30 }), (columns) => {
      const sql = selectOf(columns.map(([n]) => n))
      const values = columns.map(([, v]) => v)
      const theirs = db.prepare(sql).all(values)
      const ours = withRowsBuiltInJs(db.prepare(sql))
      t.equal(ours.reader, true)
      const all = ours.all(values)
      const iterated = [...ours.iterate(values)]
      return (
        JSON.stringify(all.map(entries)) === JSON.stringify(theirs.map(entries)) &&
        JSON.stringify(iterated.map(entries)) === JSON.stringify(theirs.map(entries)) &&
        all.every((row: unknown) => Object.getPrototypeOf(row) === Object.prototype)
      )
    }),
    { numRuns: 300 },
  )
})

t.test('several rows, and a statement that writes, through the same wrapper', async (t) => {
  db.exec('create table t (a text, b integer)')
  const insert = withRowsBuiltInJs(db.prepare('insert into t (a, b) values (?, ?)'))
  t.equal(insert.reader, false)
  t.match(insert.run(['x', 1]), { changes: 1 })
  insert.run(['y', 2])
  const read = withRowsBuiltInJs(db.prepare('select * from t where b >= ? order by b'))
  t.same(read.all([1]), [
    { a: 'x', b: 1 },
    { a: 'y', b: 2 },
  ])
  const returning = withRowsBuiltInJs(db.prepare('insert into t (a, b) values (?, ?) returning b, a'))
  t.same(returning.all(['z', 3]), [{ b: 3, a: 'z' }], 'RETURNING reads like a select')
})

t.test('a column named __proto__ is an own value, never the prototype', async (t) => {
  const row = rowConstructor(['__proto__', 'x'])([{ polluted: true }, 1])
  t.equal(Object.getPrototypeOf(row), Object.prototype)
  t.same(Object.keys(row), ['__proto__', 'x'])
  t.equal((row as { polluted?: unknown }).polluted, undefined)
})

t.test('which SQL takes its columns from the table at run time', async (t) => {
  for (const sql of [
    'select * from "t"',
    'select "t".* from "t"',
    'select "a", "t".* from "t"',
    'SELECT DISTINCT * FROM t',
    'insert into "t" ("a") values (?) returning *',
    'select "x" from (select * from "t")',
  ])
    t.ok(selectsStar(sql), sql)
  for (const sql of ['select count(*) as "n" from "t"', 'select "a" * 2 as "b" from "t"', 'select "a", "b" from "t"'])
    t.notOk(selectsStar(sql), sql)
})

/** Two connections to one new database file, as a service and another process would hold them. */
function twoConnections(
  t: Test,
  journal: 'delete' | 'wal' = 'delete',
): { ours: BetterSqlite3.Database; theirs: BetterSqlite3.Database } {
  const dir = mkdtempSync(join(tmpdir(), 'sqlite-rows-'))
  const file = join(dir, 'db.sqlite')
  const ours = new BetterSqlite3(file)
  ours.pragma(`journal_mode = ${journal}`)
  const theirs = new BetterSqlite3(file)
  t.teardown(() => {
    ours.close()
    theirs.close()
    rmSync(dir, { recursive: true, force: true })
  })
  return { ours, theirs }
}

t.test('`select *` after another connection changed the table names every value rightly', async (t) => {
  const { ours, theirs } = twoConnections(t)
  ours.exec("create table t (id integer, nombre text, dni text); insert into t values (1, 'Ana', '123A')")
  const select = statementWithRowsBuiltInJs(sourceOf(ours), 'select * from t where id = ?')
  t.same(select.all([1]), [{ id: 1, nombre: 'Ana', dni: '123A' }])

  // Another process archives the table and makes it again, its columns in another order.
  theirs.exec(
    "alter table t rename to t_archivada; create table t (dni text, id integer, nombre text); insert into t values ('999Z', 1, 'Eva')",
  )
  // Prepared now, before this connection has run anything since: on the schema it last read.
  const fresh = statementWithRowsBuiltInJs(sourceOf(ours), 'select * from t where id = ? and 1 = 1')
  t.same(fresh.all([1]), [{ dni: '999Z', id: 1, nombre: 'Eva' }], 'a statement prepared on a stale schema')
  t.same(select.all([1]), [{ dni: '999Z', id: 1, nombre: 'Eva' }], 'each value under its own name, at once')
  t.same(select.all([1]), [{ dni: '999Z', id: 1, nombre: 'Eva' }], 'and on the next call, built in JS again')

  theirs.exec("alter table t add column nota text; update t set nota = 'n'")
  t.same(select.all([1]), [{ dni: '999Z', id: 1, nombre: 'Eva', nota: 'n' }], 'a column added is read too')
  t.same([...select.iterate([1])], [{ dni: '999Z', id: 1, nombre: 'Eva', nota: 'n' }], 'and streamed')
})

t.test('a RETURNING * runs once when the schema moves under it', async (t) => {
  const { ours, theirs } = twoConnections(t)
  ours.exec('create table w (a text)')
  const source = sourceOf(ours)
  let moves = 0
  // The other connection changes the schema between the version read before the run and the run.
  const moving: RowSource = {
    prepare: source.prepare,
    snapshot: source.snapshot,
    schemaVersion: () => {
      const version = source.schemaVersion()
      if (moves++ === 2) theirs.exec('alter table w add column b text')
      return version
    },
  }
  // A RETURNING * writes: never inside a deferred read transaction (it would have to upgrade it).
  t.same(
    statementWithRowsBuiltInJs(
      {
        ...source,
        snapshot: () => {
          throw new Error('a write in a read transaction')
        },
      },
      'insert into w (a) values (?) returning *',
    ).all(['cero']),
    [{ a: 'cero' }],
  )
  const insert = statementWithRowsBuiltInJs(moving, 'insert into w (a) values (?) returning *')
  t.same(insert.all(['uno']), [{ a: 'uno' }])
  t.same(insert.all(['dos']), [{ a: 'dos', b: null }], 'named by the columns it ran with')
  t.same(insert.all(['tres']), [{ a: 'tres', b: null }])
  t.same(ours.prepare('select a from w').pluck().all(), ['cero', 'uno', 'dos', 'tres'], 'one row per insert')
})

t.test('a `select *` reads the version, its rows and the version again in one snapshot', async (t) => {
  // WAL, as the service runs: another connection may commit while this one reads.
  const { ours, theirs } = twoConnections(t, 'wal')
  ours.exec("create table t (id integer, nombre text); insert into t values (1, 'Ana')")
  const source = sourceOf(ours)
  let reads = 0
  const moving: RowSource = {
    ...source,
    schemaVersion: () => {
      const version = source.schemaVersion()
      // Between the version read before the statement and the statement itself.
      if (reads++ === 0) theirs.exec("alter table t add column nota text; update t set nota = 'n'")
      return version
    },
  }
  const select = statementWithRowsBuiltInJs(moving, 'select * from t where id = ?')
  t.same(select.all([1]), [{ id: 1, nombre: 'Ana' }], 'the change committed meanwhile is not part of this read')
  t.notOk(ours.inTransaction, 'the read transaction ends with the read')
  t.same(select.all([1]), [{ id: 1, nombre: 'Ana', nota: 'n' }], 'the next read sees it, each value named')

  const failing = statementWithRowsBuiltInJs(source, "select * from t where json_extract('no json', '$') = ?")
  t.throws(() => failing.all([1]), /malformed JSON/)
  t.notOk(ours.inTransaction, 'nor is it left open when the statement fails')

  ours.exec('begin')
  t.same(select.all([1]), [{ id: 1, nombre: 'Ana', nota: 'n' }], 'inside an open transaction')
  t.ok(ours.inTransaction, 'which stays open')
  ours.exec('commit')
})
