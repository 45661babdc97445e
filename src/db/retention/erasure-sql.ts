// What an erasure (D41) asks of each database beyond deleting rows, so that the erased values
// are not left readable in the files. SQLite: deleted content is zeroed (`secure_delete`, set on
// every connection by dialects/sqlite.ts); FTS5 would keep an erased record's words in its index
// segments behind a delete marker until a merge, so the delete runs with FTS5's own
// `secure-delete` on, which takes them out of the segments at once; after the commit a
// truncating checkpoint moves the WAL's pages into the database and empties it, so the WAL keeps
// no copy of the pages as they were. PostgreSQL: the text-search entries are the GIN indexes'
// and go with the row; VACUUM after the commit frees the dead row versions and their index
// entries (the bytes of the freed space are reused, not overwritten: see docs/operators.md).
import { sql } from 'kysely'
import type { Dialect } from '../../compile/field-types.js'
import type { ModuleSpec } from '../../compile/types.js'
import { searchTableName } from '../../config/database-names.js'
import type { Database, Db } from '../database.js'
import { SYSTEM_TABLES } from '../system-tables.js'

/** FTS5's `secure-delete` option of one search table, on or off (FTS5 takes no bound value here). */
const ftsSecureDelete = (trx: Db, table: string, on: boolean) =>
  sql`insert into ${sql.table(table)} (${sql.id(table)}, rank) values ('secure-delete', ${sql.lit(on ? 1 : 0)})`.execute(
    trx,
  )

/** Runs `remove` (the delete of the record's row) so that its text-search entries leave no trace. */
export async function deleteSearchEntries(
  trx: Db,
  dialect: Dialect,
  spec: ModuleSpec,
  remove: () => Promise<unknown>,
): Promise<void> {
  const searched = dialect === 'sqlite' && (spec.table.search?.length ?? 0) > 0
  const fts = searchTableName(spec.table.name)
  // On for this delete only: every other write keeps FTS5's cheaper delete markers.
  if (searched) await ftsSecureDelete(trx, fts, true)
  await remove()
  if (searched) await ftsSecureDelete(trx, fts, false)
}

/** Whether the freed space was made unreadable; false: another connection kept the WAL in use. */
export async function reclaimFreedSpace(database: Database, specs: readonly ModuleSpec[]): Promise<boolean> {
  if (database.dialect === 'sqlite') {
    const { rows } = await sql<{ busy: number }>`pragma wal_checkpoint(TRUNCATE)`.execute(database.db)
    return rows[0]?.busy === 0
  }
  const tables = [...new Set(specs.map((s) => s.table.name)), SYSTEM_TABLES.versions, SYSTEM_TABLES.retention]
  await sql`vacuum ${sql.join(tables.map((t) => sql.table(t)))}`.execute(database.db)
  return true
}
