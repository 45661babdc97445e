// The service's durability settings for the report (D45), read through a database handle opened
// as the service's processes open theirs (`openService`): the service has no endpoint for them.
import { sql } from 'kysely'
import type { Database } from '../../src/db/database.js'
import { postgresSettings, sqliteSettings, type Durability } from './durability.js'
import { readEveryConnection } from './every-connection.js'

/**
 * The service's settings, read through its own database handle (the one `openService` opens,
 * as the service's processes open theirs): SQLite's one connection, or every connection of
 * its PostgreSQL pool (`poolSize`, its DATABASE_POOL_SIZE), each counted once by its backend pid.
 */
export async function serviceDurability(database: Database, poolSize: number): Promise<Durability> {
  const db = database.db
  if (database.dialect === 'sqlite') {
    const journal = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(db)
    const synchronous = await sql<{ synchronous: number }>`pragma synchronous`.execute(db)
    return { connections: [sqliteSettings(journal.rows[0]?.journal_mode, synchronous.rows[0]?.synchronous)] }
  }
  const read = await readEveryConnection<{ pid: number; value: string }>(poolSize, (work) =>
    db.connection().execute((connection) =>
      work(async () => {
        const { rows } = await sql<{
          pid: number
          value: string
        }>`select pg_backend_pid() as pid, current_setting('synchronous_commit') as value`.execute(connection)
        return rows[0] as { pid: number; value: string }
      }),
    ),
  )
  return { connections: [...new Map(read.map((r) => [r.pid, postgresSettings(r.value)])).values()] }
}
