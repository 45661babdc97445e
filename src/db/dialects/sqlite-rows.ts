// better-sqlite3 statements whose rows are built in JavaScript. better-sqlite3 makes
// each row object in C++, one property at a time; past a score of columns V8 keeps such an object
// as a dictionary, slow to build and slow to read. A list page of 100 full records (27 columns)
// took about twice as long that way as reading the same rows as arrays. Here a reading statement
// returns arrays (`raw`), and one constructor per statement, compiled from its column names,
// builds each row as an object literal: the same keys, values and order as before.
//
// A value is named by its position, so the names must be those of the schema the statement ran
// on. Named columns are fixed by the SQL's text. `*` takes the table's columns as they are when
// SQLite runs it, and another process may change them under a running service (`records
// migrate`; D40 and the schema watch: it serves on until restarted): for such a statement the
// schema's version is read before and after it runs, and when it moved (or on its first run),
// the values are named by the columns the statement ran with, read after the run.
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

/**
 * Whether the SQL selects or returns `*` (or `"t".*`) anywhere: its columns are the table's at
 * run time. `count(*)` is not. A false positive only costs the two version reads.
 */
export const selectsStar = (sql: string): boolean =>
  /(?:\bselect\s+(?:distinct\s+)?|,\s*|\breturning\s+)(?:"(?:[^"]|"")*"\.)?\*/i.test(sql)

/** What the wrapper needs of the connection. */
export interface RowSource {
  prepare(sql: string): BetterSqlite3.Statement
  /** `pragma schema_version`: changes with every change of the schema, by any connection. */
  schemaVersion(): number
  /**
   * Runs `read` inside one read transaction, or as it is inside the one already open. Each
   * statement outside a transaction takes and releases the file's shared lock (two fcntl calls on
   * a WAL file); the version reads around a `*` statement and the statement itself then take it
   * once instead of three times, and all three see one snapshot.
   */
  snapshot<T>(read: () => T): T
}

/** The RowSource of a better-sqlite3 connection. */
export function rowSource(raw: BetterSqlite3.Database): RowSource {
  const schemaVersion = raw.prepare('pragma schema_version').pluck()
  const begin = raw.prepare('begin')
  const commit = raw.prepare('commit')
  const rollback = raw.prepare('rollback')
  return {
    prepare: (sql) => raw.prepare(sql),
    schemaVersion: () => schemaVersion.get() as number,
    snapshot(read) {
      if (raw.inTransaction) return read()
      // (better-sqlite3 refuses `begin` while an iterator of this connection is open; Kysely holds
      // the connection for a stream's whole length, so no read comes here meanwhile.)
      begin.run()
      try {
        return read()
      } finally {
        // A read ends its transaction by committing nothing; SQLite may have ended it already. Were
        // the commit to fail, the transaction is rolled back: left open, every later read would
        // run inside it, on its old snapshot, and no write could begin.
        try {
          if (raw.inTransaction) commit.run()
        } finally {
          if (raw.inTransaction) rollback.run()
        }
      }
    },
  }
}

/** `statement` in raw mode and the constructor of its rows. */
function rawReader(statement: BetterSqlite3.Statement): { readonly statement: BetterSqlite3.Statement; rowOf: RowOf } {
  const rowOf = rowConstructor(statement.columns().map((c) => c.name))
  return { statement: statement.raw(true), rowOf }
}

/** The statement of `sql` on `source`, as Kysely's driver uses it; a reader's rows built by rowConstructor. */
export function statementWithRowsBuiltInJs(source: RowSource, sql: string): SqliteStatement {
  const prepared = source.prepare(sql)
  if (!prepared.reader) return prepared as unknown as SqliteStatement
  // The parameters stay one array, bound by position, as Kysely's driver passes them.
  const rowsOf = (reader: ReturnType<typeof rawReader>, parameters: readonly unknown[]) =>
    (reader.statement.all(parameters) as unknown[][]).map(reader.rowOf)
  if (!selectsStar(sql)) {
    const reader = rawReader(prepared)
    return {
      reader: true,
      all: (parameters) => rowsOf(reader, parameters),
      run: (parameters) => reader.statement.run(parameters),
      *iterate(parameters) {
        for (const values of reader.statement.iterate(parameters) as IterableIterator<unknown[]>)
          yield reader.rowOf(values)
      },
    }
  }
  /** The schema's version before and after the statement runs, and its rows as arrays. */
  const versionsAround = (statement: BetterSqlite3.Statement, parameters: readonly unknown[]) =>
    [source.schemaVersion(), statement.all(parameters) as unknown[][], source.schemaVersion()] as const
  /** No version yet: SQLite may prepare against a connection's stale schema and only see it when it runs. */
  const UNKNOWN = -1
  let seen = UNKNOWN
  const reader = rawReader(prepared)
  let named: BetterSqlite3.Statement | undefined
  /** The same SQL with better-sqlite3's own row objects, named by the schema it runs on. */
  const byName = () => (named ??= source.prepare(sql))
  return {
    reader: true,
    all(parameters) {
      // A `RETURNING *` writes: it runs as it is asked (its transaction, or none), never inside a
      // deferred read transaction that it would have to upgrade.
      const [before, values, after] = reader.statement.readonly
        ? source.snapshot(() => versionsAround(reader.statement, parameters))
        : versionsAround(reader.statement, parameters)
      if (before !== seen || after !== before) {
        // SQLite may have prepared the statement anew as it ran: the values are named by the
        // columns it ran with, read after the run. Never a second run: a RETURNING * writes once.
        reader.rowOf = rowConstructor(reader.statement.columns().map((c) => c.name))
        seen = after === before ? before : UNKNOWN
      }
      return values.map(reader.rowOf)
    },
    run: (parameters) => reader.statement.run(parameters),
    // A stream of rows may outlast a change of schema: named by better-sqlite3 throughout.
    iterate: (parameters) => byName().iterate(parameters),
  }
}
