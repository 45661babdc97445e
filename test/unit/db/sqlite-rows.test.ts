// Rows built in JavaScript (issue #17): for any column names and values, a reading statement
// answers what better-sqlite3's own row objects hold, with the same keys in the same order, on a
// real in-memory SQLite database. Names are arbitrary text (quotes, backslashes, line breaks,
// `${`, duplicates): none can be read as code.
import BetterSqlite3 from 'better-sqlite3'
import fc from 'fast-check'
import t from 'tap'
import { rowConstructor, withRowsBuiltInJs } from '../../../src/db/dialects/sqlite-rows.js'

const db = new BetterSqlite3(':memory:')
t.teardown(() => db.close())

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
        all.every((row) => Object.getPrototypeOf(row) === Object.prototype)
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
