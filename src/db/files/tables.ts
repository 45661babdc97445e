// D43: the tables of evidence files. `_files`: one row per stored file (its record, field and
// number, digest, size, type, name, the blob holding its sealed bytes and its key wrapped by the
// service's field key). `_file_chunks` (PostgreSQL): the sealed segments of each blob.
import { sql } from 'kysely'
import type { Dialect } from '../../compile/field-types.js'
import type { Db } from '../database.js'
import { DDL_TYPES } from '../dialects/ddl.js'

export const FILE_TABLES = { files: '_files', chunks: '_file_chunks' } as const

/** Idempotent, with the other system tables. */
export async function createFileTables(db: Db, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable(FILE_TABLES.files)
    .ifNotExists()
    .addColumn('module', 'text', (c) => c.notNull())
    .addColumn('record_id', 'text', (c) => c.notNull())
    .addColumn('field', 'text', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('size', sql.raw(DDL_TYPES[dialect].bigint), (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('blob', 'text', (c) => c.notNull())
    .addColumn('file_key', 'text', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addPrimaryKeyConstraint('_files_pkey', ['module', 'record_id', 'field', 'n'])
    .execute()
  if (dialect !== 'postgres') return
  await db.schema
    .createTable(FILE_TABLES.chunks)
    .ifNotExists()
    .addColumn('blob', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('data', 'bytea', (c) => c.notNull())
    .addPrimaryKeyConstraint('_file_chunks_pkey', ['blob', 'seq'])
    .execute()
}
