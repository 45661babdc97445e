// What an erasure (D41) asks of each database beyond deleting rows, so that the erased values
// are not left readable in the files. SQLite: deleted content is zeroed (`secure_delete`, set on
// every connection by dialects/sqlite.ts). FTS5 keeps the words of a deleted or changed row in
// its index segments behind a delete marker until a merge; its own `secure-delete` option takes
// them out at once instead, but only from then on: words an edit replaced before stay in older
// segments, and (SQLite 3.53, tried) it does not reach into segments written before it was on,
// even once merged by 'optimize'. So the first erasure in a module turns the option on for good
// and builds the index again from the table ('rebuild': the deleted rows' words are not in it);
// every later delete and update of the module is then clean, and an erasure is a plain delete.
// After the commit a truncating checkpoint moves the WAL's pages into the database and empties
// it, so the WAL keeps no copy of the pages as they were. PostgreSQL: the text-search entries are
// the GIN indexes' and go with the row; VACUUM after the commit frees the dead row versions and
// their index entries (what stays readable on disk: docs/operators.md).
import { sql } from 'kysely'
import type { Dialect } from '../../compile/field-types.js'
import type { ModuleSpec } from '../../compile/types.js'
import { searchTableName } from '../../config/database-names.js'
import type { Database, Db } from '../database.js'
import { FILE_TABLES } from '../files/tables.js'
import { SYSTEM_TABLES } from '../system-tables.js'
import { RECORD_KEYS_TABLE } from '../keys/record-keys.js'

/**
 * Before an erasure in `spec` (inside its transaction): FTS5's `secure-delete` on for the module's
 * search table, and the index built again from the table the first time.
 */
export async function secureSearchDeletes(trx: Db, dialect: Dialect, spec: ModuleSpec): Promise<void> {
  if (dialect !== 'sqlite' || (spec.table.search?.length ?? 0) === 0) return
  const fts = searchTableName(spec.table.name)
  const config = sql.table(`${fts}_config`)
  const { rows } = await sql<{ v: unknown }>`select v from ${config} where k = 'secure-delete'`.execute(trx)
  if (Number(rows[0]?.v ?? 0) === 1) return
  // FTS5 takes no bound value for its commands.
  await sql`insert into ${sql.table(fts)} (${sql.id(fts)}, rank) values ('secure-delete', 1)`.execute(trx)
  await sql`insert into ${sql.table(fts)} (${sql.id(fts)}) values ('rebuild')`.execute(trx)
}

/** Whether the freed space was made unreadable; false: another connection kept the WAL in use. */
export async function reclaimFreedSpace(database: Database, specs: readonly ModuleSpec[]): Promise<boolean> {
  if (database.dialect === 'sqlite') {
    const { rows } = await sql<{ busy: number }>`pragma wal_checkpoint(TRUNCATE)`.execute(database.db)
    return rows[0]?.busy === 0
  }
  // The evidence files' rows (their wrapped keys) and sealed chunks too (D43).
  const tables = [
    ...new Set(specs.map((s) => s.table.name)),
    SYSTEM_TABLES.versions,
    SYSTEM_TABLES.retention,
    FILE_TABLES.files,
    FILE_TABLES.chunks,
    // The erased records' data keys (D41): their emptied rows' old versions held the wrapped keys.
    RECORD_KEYS_TABLE,
  ]
  await sql`vacuum ${sql.join(tables.map((t) => sql.table(t)))}`.execute(database.db)
  return true
}
