// Indexes that an archived table kept under a module's index names. Before 2026-11-24 a removed
// module's table was archived with its indexes (`ux_<module>__id`, ...); a module of the same
// name added again then failed at `create index`. A migration that creates an index drops first
// an index of that name left on an archived table: the archive keeps its rows, and nothing reads
// it through an index.
import { sql } from 'kysely'
import type { Dialect } from '../../compile/field-types.js'
import { storedName } from '../../config/database-names.js'
import type { Db } from '../database.js'
import type { MigrationStep } from './plan.js'

/** `_archived_...` with its underscores taken literally (LIKE's escape is the backslash). */
const ARCHIVED_TABLES = '\\_archived\\_%'

async function indexesOnArchives(db: Db, dialect: Dialect): Promise<string[]> {
  const found =
    dialect === 'postgres'
      ? await sql<{ name: string }>`select indexname as name from pg_indexes
          where schemaname = current_schema() and tablename like ${ARCHIVED_TABLES}`.execute(db)
      : await sql<{ name: string }>`select name from sqlite_master
          where type = 'index' and tbl_name like ${ARCHIVED_TABLES} escape '\\'`.execute(db)
  return found.rows.map((r) => r.name)
}

/** Drops each index on an archived table whose name one of `steps` is about to create. */
export async function dropArchivedIndexesInTheWay(
  db: Db,
  dialect: Dialect,
  steps: readonly MigrationStep[],
): Promise<void> {
  // PostgreSQL lists a long name by its first 63 bytes; SQLite keeps it whole.
  const asListed = (name: string) => (dialect === 'postgres' ? storedName(name) : name)
  const created = new Set(steps.flatMap((s) => (s.kind === 'create_index' ? [asListed(s.index.name)] : [])))
  if (created.size === 0) return
  for (const name of await indexesOnArchives(db, dialect))
    if (created.has(name)) await db.schema.dropIndex(name).execute()
}
