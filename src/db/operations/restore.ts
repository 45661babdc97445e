// `records restore` on SQLite: the file steps. A backup is first copied beside the database
// (same directory, so the final rename is atomic) and checked there; the current database is
// renamed aside with its -wal and -shm, never deleted; then the checked copy takes its name.
import { closeSync, existsSync, fsyncSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs'
import { dirname } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { isOperatorError, restoreRefused } from '../../errors.js'
import { SYSTEM_TABLES } from '../system-tables.js'

const SIDECARS = ['-wal', '-shm', '-journal'] as const

function fsyncPath(path: string): void {
  const fd = openSync(path, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** `backup` copied to `temporary`, created 0600 (never wider, not for an instant) and synced to disk. */
export function stageBackup(backup: string, temporary: string): void {
  const from = openSync(backup, 'r')
  try {
    const to = openSync(temporary, 'wx', 0o600)
    try {
      const buffer = Buffer.alloc(1 << 20)
      for (let n = readSync(from, buffer); n > 0; n = readSync(from, buffer)) writeSync(to, buffer, 0, n)
      fsyncSync(to)
    } finally {
      closeSync(to)
    }
  } finally {
    closeSync(from)
  }
}

/** Refuses a file that is not a sound SQLite database of this service (integrity_check, system tables). */
export function checkBackupFile(file: string, shownAs: string): void {
  let db: BetterSqlite3.Database | undefined
  try {
    db = new BetterSqlite3(file, { fileMustExist: true })
    const integrity = db.pragma('integrity_check', { simple: true })
    if (integrity !== 'ok') throw restoreRefused(`${shownAs} está dañada (integrity_check: ${String(integrity)})`)
    const tables = new Set(
      (db.prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[]).map(
        (r) => r.name,
      ),
    )
    const missing = [SYSTEM_TABLES.audit, '_schema_state'].filter((name) => !tables.has(name))
    if (missing.length > 0)
      throw restoreRefused(`${shownAs} no es una copia de este servicio: le faltan las tablas ${missing.join(', ')}`)
  } catch (error) {
    if (isOperatorError(error)) throw error
    throw restoreRefused(`${shownAs} no es una base de datos SQLite: ${(error as Error).message}`)
  } finally {
    db?.close()
  }
}

/**
 * The current database (with its -wal and -shm) renamed to `aside` when it exists, then the
 * checked `staged` copy renamed to `database`, and the directory synced.
 */
export function swapInRestored(database: string, staged: string, aside: string): boolean {
  const hadDatabase = existsSync(database)
  if (hadDatabase) {
    renameSync(database, aside)
    for (const suffix of SIDECARS) if (existsSync(database + suffix)) renameSync(database + suffix, aside + suffix)
  }
  for (const suffix of SIDECARS) rmSync(staged + suffix, { force: true })
  renameSync(staged, database)
  fsyncPath(dirname(database))
  return hadDatabase
}

/** Removes a staged copy that was refused, with anything SQLite left beside it. */
export function discardStaged(staged: string): void {
  for (const suffix of ['', ...SIDECARS]) rmSync(staged + suffix, { force: true })
}
