// Online backup of the embedded SQLite database (operators): SQLite's backup API
// copies a consistent snapshot page by page while the service keeps serving.
import { existsSync } from 'node:fs'
import BetterSqlite3 from 'better-sqlite3'
import { makePrivate } from '../dialects/sqlite.js'
import { backupRefused } from '../../errors.js'

export interface BackupResult {
  readonly destination: string
  readonly pages: number
}

/** Copies `sourceFile` to `destination` (which must not exist yet) with the online backup API. */
export async function backupSqlite(sourceFile: string, destination: string): Promise<BackupResult> {
  if (!existsSync(sourceFile)) throw backupRefused(`No existe la base de datos '${sourceFile}'`)
  if (existsSync(destination)) throw backupRefused(`'${destination}' ya existe: no se sobrescribe una copia`)
  const source = new BetterSqlite3(sourceFile, { fileMustExist: true })
  try {
    // Created empty and private first: SQLite would create it with the umask's mode.
    makePrivate(destination)
    const { totalPages } = await source.backup(destination)
    makePrivate(destination)
    return { destination, pages: totalPages }
  } finally {
    source.close()
  }
}
