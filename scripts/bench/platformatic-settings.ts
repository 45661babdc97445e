// A Platformatic DB plugin (its config's `plugins.paths`, scripts/bench/platformatic.ts): loaded
// into the peer's process, on the peer's own connections. D45: the peer runs with the service's
// durability.
//   On SQLite it sets `journal_mode = WAL` (kept in the file; the bench created the file so) and
//   `synchronous = FULL` (per connection) on its connection at start. Platformatic 2.x opens one
//   SQLite connection (@platformatic/sql-mapper: a pool of maxSize 1, never closed when idle); the
//   pool would replace it only after a query held it past its 10 s release timeout, and the
//   replacement would not have the pragma: which is why the bench reads the settings back after
//   the run, not only at start.
//   On PostgreSQL the bench's database has `synchronous_commit = on` for every connection.
//   GET /bench-settings answers what its connections say now: SQLite's `PRAGMA journal_mode` and
//   `PRAGMA synchronous`, or `synchronous_commit` on each of `connections` pooled connections at
//   once, each with its backend pid. The bench reads it for the report; it is not measured.
// Nothing but ./every-connection.js is imported: the peer's process stays the peer's.
import { readEveryConnection } from './every-connection.js'

type Rows = Record<string, unknown>[]
interface Queryable {
  query(query: unknown): Promise<Rows>
}
/** What @platformatic/sql-mapper decorates the app with (`app.platformatic`): its pool and its `sql` tag. */
interface PeerApp {
  readonly platformatic: {
    readonly db: Queryable & {
      readonly isSQLite?: boolean
      tx<T>(work: (tx: Queryable) => Promise<T>): Promise<T>
    }
    readonly sql: (strings: TemplateStringsArray, ...values: unknown[]) => unknown
  }
  get(path: string, handler: () => Promise<unknown>): unknown
}

export interface BenchSettingsOptions {
  /** How many connections the pool holds (its `db.poolSize`) on PostgreSQL. */
  readonly connections?: number
}

export default async function benchSettings(app: PeerApp, options: BenchSettingsOptions): Promise<void> {
  const { db, sql } = app.platformatic
  if (db.isSQLite === true) {
    await db.query(sql`PRAGMA journal_mode = WAL`)
    await db.query(sql`PRAGMA synchronous = FULL`)
    app.get('/bench-settings', async () => {
      const [journal] = await db.query(sql`PRAGMA journal_mode`)
      const [synchronous] = await db.query(sql`PRAGMA synchronous`)
      return {
        kind: 'sqlite',
        connections: [{ journal_mode: journal?.['journal_mode'], synchronous: synchronous?.['synchronous'] }],
      }
    })
    return
  }
  app.get('/bench-settings', async () => ({
    kind: 'postgres',
    connections: await readEveryConnection(options.connections ?? 10, (work) =>
      db.tx((tx) =>
        work(
          async () =>
            (
              await tx.query(
                sql`SELECT pg_backend_pid() AS pid, current_setting('synchronous_commit') AS synchronous_commit`,
              )
            )[0] ?? {},
        ),
      ),
    ),
  }))
}
