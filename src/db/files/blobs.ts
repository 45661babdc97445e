// D43: where the sealed bytes of files live, one store per dialect answering the same questions:
// SQLite in DATA_DIR (files/<module>/<id>/<blob>), PostgreSQL in the database (`_file_chunks`),
// so every instance serves every file. A blob is written in full and made durable before the
// row naming it commits: a row never points at missing bytes; a crash in between leaves an orphan
// blob no row names, harmless.
import { randomUUID } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { mkdir, open, rename, rmdir, unlink } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { integrityError } from '../../errors.js'
import type { Database, Db } from '../database.js'
import { FILE_TABLES } from './tables.js'

/** The record a blob belongs to (SQLite files one folder per record). */
export interface BlobPlace {
  readonly module: string
  readonly recordId: string
}

export interface BlobStore {
  /**
   * Stores `segments` under a new id and makes them durable. When `segments` fails (too large,
   * a wrong type, a client gone) nothing stays and its error is rethrown.
   */
  put(place: BlobPlace, segments: AsyncIterable<Buffer>): Promise<string>
  /** Removes a blob no row names (its write did not commit). */
  discard(place: BlobPlace, blob: string): Promise<void>
  /** The stored segments, as written. */
  read(place: BlobPlace, blob: string): AsyncIterable<Buffer>
}

export function createBlobStore(database: Database, dataDir: string): BlobStore {
  return database.dialect === 'postgres' ? databaseBlobs(database) : folderBlobs(dataDir)
}

/** SQLite: the folder of a record's sealed files. */
export const recordFolder = (dataDir: string, place: BlobPlace): string =>
  join(dataDir, 'ficheros', place.module, place.recordId)

/** SQLite: DATA_DIR/ficheros/<module>/<record id>/<blob>, written as `.<blob>.parte` then renamed. */
function folderBlobs(dataDir: string): BlobStore {
  const folderOf = (place: BlobPlace) => recordFolder(dataDir, place)
  return {
    async put(place, segments) {
      const folder = folderOf(place)
      // A folder made now is durable only once its parents' entries are: sync each one created.
      const created = await mkdir(folder, { recursive: true, mode: 0o700 })
      if (created !== undefined) for (const parent of parentsUpTo(created, folder)) await syncFolder(parent)
      const blob = randomUUID()
      await writeFolderBlob(folder, blob, segments)
      return blob
    },
    // The folder too once empty: an upload that lost to an erasure leaves no folder named after it.
    async discard(place, blob) {
      await unlink(join(folderOf(place), blob)).catch(() => undefined)
      await rmdir(folderOf(place)).catch(() => undefined)
    },
    async *read(place, blob) {
      const path = join(folderOf(place), blob)
      try {
        for await (const chunk of createReadStream(path)) yield chunk as Buffer
      } catch (error) {
        throw integrityError(new Error(`${path}: fichero ilegible o ausente`, { cause: error }))
      }
    },
  }
}

/** `.<blob>.parte` written, flushed, renamed to `<blob>` and the rename flushed; nothing left on a failure. */
async function writeFolderBlob(folder: string, blob: string, segments: AsyncIterable<Buffer>): Promise<void> {
  const part = join(folder, `.${blob}.parte`)
  const handle = await open(part, 'wx', 0o600)
  try {
    for await (const segment of segments) await handle.write(segment)
    await handle.sync()
    await handle.close()
    await rename(part, join(folder, blob))
    // The rename itself durable: the folder's entry reaches the disk before the row commits.
    await syncFolder(folder)
  } catch (error) {
    await handle.close().catch(() => undefined)
    await unlink(part).catch(() => undefined)
    await unlink(join(folder, blob)).catch(() => undefined)
    throw error
  }
}

async function syncFolder(folder: string): Promise<void> {
  const dir = await open(folder, 'r')
  await dir.sync().finally(() => dir.close())
}

/** The parent of `first` (the first folder `mkdir` created) and every folder below it down to `last`'s parent. */
function parentsUpTo(first: string, last: string): string[] {
  const parents: string[] = []
  for (let folder = last; ; folder = dirname(folder)) {
    parents.unshift(dirname(folder))
    if (folder === first || dirname(folder) === folder) return parents
  }
}

/** PostgreSQL: one row per segment, written in one transaction (rolled back on a failure). */
function databaseBlobs(database: Database): BlobStore {
  const { db } = database
  return {
    async put(_place, segments) {
      const blob = randomUUID()
      await db.transaction().execute(async (trx) => {
        let seq = 0
        for await (const data of segments)
          await trx.insertInto(FILE_TABLES.chunks).values({ blob, seq: seq++, data }).execute()
      })
      return blob
    },
    discard: async (_place, blob) => {
      await db
        .deleteFrom(FILE_TABLES.chunks)
        .where('blob', '=', blob)
        .execute()
        .catch(() => undefined)
    },
    async *read(_place, blob) {
      for (let seq = 0; ; seq++) {
        const row = await db
          .selectFrom(FILE_TABLES.chunks)
          .select('data')
          .where('blob', '=', blob)
          .where('seq', '=', seq)
          .executeTakeFirst()
        if (row === undefined) {
          if (seq === 0) throw integrityError(new Error(`fichero ${blob}: sin contenido en la base de datos`))
          return
        }
        yield row['data'] as Buffer
      }
    },
  }
}

/**
 * `records copy`: a blob's sealed segments written on `target` under the id it had on the source
 * (its file key is wrapped for that id), one chunk row per segment in `trx` on PostgreSQL, so they
 * commit or roll back with the copied rows; SQLite: in `dataDir` (the caller removes its folder
 * when the copy fails).
 */
export async function copyBlob(
  target: Database,
  trx: Db,
  dataDir: string,
  place: BlobPlace,
  blob: string,
  segments: AsyncIterable<Buffer>,
): Promise<void> {
  if (target.dialect === 'postgres') {
    let seq = 0
    for await (const data of segments)
      await trx.insertInto(FILE_TABLES.chunks).values({ blob, seq: seq++, data }).execute()
    return
  }
  const folder = recordFolder(dataDir, place)
  await mkdir(folder, { recursive: true, mode: 0o700 })
  await writeFolderBlob(folder, blob, segments)
}
