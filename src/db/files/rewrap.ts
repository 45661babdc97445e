// D43 with D14's rotation: each file's own key is kept wrapped by the service's active field key.
// A rotation wraps them again under the new key (the sealed bytes never change), so a retired key
// leaves no file unreadable; records keys counts the wrapped keys with the other values.
import type { FieldCipher } from '../crypto.js'
import type { Database, Db } from '../database.js'
import { FILE_TABLES } from './tables.js'

export const fileKeyContext = (blob: string): string => `fichero:${blob}`

/** Wraps under the active key every file key wrapped by another; returns how many. */
export async function rewrapFileKeys(
  database: Database,
  cipher: FieldCipher,
  beforeWrite: (trx: Db) => Promise<void>,
): Promise<number> {
  return database.db.transaction().execute(async (trx) => {
    await beforeWrite(trx)
    const rows = await trx
      .selectFrom(FILE_TABLES.files)
      .select(['blob', 'file_key'])
      .where('file_key', 'not like', `v1.${cipher.activeKeyId}.%`)
      .execute()
    for (const row of rows) {
      const context = fileKeyContext(String(row.blob))
      await trx
        .updateTable(FILE_TABLES.files)
        .set({ file_key: cipher.encrypt(cipher.decrypt(String(row.file_key), context), context) })
        .where('blob', '=', String(row.blob))
        .execute()
    }
    return rows.length
  })
}
