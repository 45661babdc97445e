// better-sqlite3 statements whose rows are built in JavaScript (issue #17). better-sqlite3 makes
// each row object in C++, one property at a time; past a score of columns V8 keeps such an object
// as a dictionary, slow to build and slow to read. A list page of 100 full records (27 columns)
// took about twice as long that way as reading the same rows as arrays. Here a reading statement
// returns arrays (`raw`), and one constructor per statement, compiled from its column names,
// builds each row as an object literal: the same keys, values and order as before.
import type BetterSqlite3 from 'better-sqlite3'
import type { SqliteStatement } from 'kysely'

type RowOf = (values: readonly unknown[]) => Record<string, unknown>

/**
 * `(values) => ({ "name0": values[0], ... })`. Column names come from the statement's SQL; each
 * is written as a JSON string literal, so no name can be read as code. A name given twice keeps
 * its last value, as better-sqlite3's own objects do. A column named `__proto__` is an own
 * property (a computed key), never the object's prototype.
 */
export function rowConstructor(names: readonly string[]): RowOf {
  const key = (name: string) => (name === '__proto__' ? `[${JSON.stringify(name)}]` : JSON.stringify(name))
  const properties = names.map((name, i) => `${key(name)}: values[${i}]`).join(', ')
  return new Function('values', `return { ${properties} }`) as RowOf
}

/** `statement` as Kysely's driver uses it, a reader's rows built by rowConstructor. */
export function withRowsBuiltInJs(statement: BetterSqlite3.Statement): SqliteStatement {
  if (!statement.reader) return statement as unknown as SqliteStatement
  const rowOf = rowConstructor(statement.columns().map((c) => c.name))
  statement.raw(true)
  return {
    reader: true,
    // The parameters stay one array, bound by position, as Kysely's driver passes them.
    all: (parameters) => (statement.all(parameters) as unknown[][]).map(rowOf),
    run: (parameters) => statement.run(parameters),
    *iterate(parameters) {
      for (const values of statement.iterate(parameters) as IterableIterator<unknown[]>) yield rowOf(values)
    },
  }
}
