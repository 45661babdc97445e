// D41 with D43: erasing a record erases its evidence files. In the erasure's transaction the
// files' rows go, and with them each file's own key (wrapped in the row), so the sealed bytes can
// no longer be opened wherever a copy of them lies; on PostgreSQL the bytes themselves go in the
// same transaction. On SQLite the record's folder of sealed files is removed once it has committed.
import { rm } from 'node:fs/promises'
import type { Dialect } from '../../compile/field-types.js'
import type { Db } from '../database.js'
import { recordFolder, type BlobPlace } from './blobs.js'
import { FILE_TABLES } from './tables.js'

/** Deletes the record's files' rows (their keys) and, on PostgreSQL, their bytes; how many went. */
export async function eraseRecordFiles(trx: Db, dialect: Dialect, place: BlobPlace): Promise<number> {
  const rows = await trx
    .selectFrom(FILE_TABLES.files)
    .select('blob')
    .where('module', '=', place.module)
    .where('record_id', '=', place.recordId)
    .execute()
  if (rows.length === 0) return 0
  const blobs = rows.map((row) => String(row['blob']))
  if (dialect === 'postgres') await trx.deleteFrom(FILE_TABLES.chunks).where('blob', 'in', blobs).execute()
  await trx
    .deleteFrom(FILE_TABLES.files)
    .where('module', '=', place.module)
    .where('record_id', '=', place.recordId)
    .execute()
  return blobs.length
}

/** SQLite, after the erasure committed: the record's folder of sealed files, whose keys are gone. */
export async function removeErasedFolder(dataDir: string, place: BlobPlace): Promise<void> {
  await rm(recordFolder(dataDir, place), { recursive: true, force: true })
}
