// A start that fails (modules.yaml, a setting, a refused migration, a database out of reach, a
// port taken) leaves no secret of its own behind in DATA_DIR: the JWT secret and encryption key
// this start generated are removed; files that were there before are never touched. One
// exception: a key the database has already registered stays, since the database now needs it.
import { existsSync, rmSync } from 'node:fs'
import { createDatabase } from '../db/connect.js'
import { keyIdOf } from '../db/crypto.js'
import { registeredKeys } from '../db/keys/registry.js'
import type { Settings } from './settings.js'

/** The key ids the database's registry names; none when it cannot be read (or does not exist yet). */
async function registeredKeyIds(settings: Settings): Promise<readonly string[]> {
  const url = settings.databaseUrl
  if (url.startsWith('sqlite:') && !existsSync(url.slice('sqlite:'.length))) return []
  try {
    const database = await createDatabase(url, { poolSize: 1 })
    try {
      return await registeredKeys(database.db)
    } finally {
      await database.close()
    }
  } catch {
    return []
  }
}

/** Removes the secret files `settings` created; returns the ones removed. */
export async function discardGeneratedSecrets(settings: Settings): Promise<readonly string[]> {
  if (settings.generatedFiles.length === 0) return []
  const keyFile = settings.encryptionKeyFile
  const kept = new Set<string>()
  if (keyFile !== undefined && settings.generatedFiles.includes(keyFile)) {
    const registered = await registeredKeyIds(settings)
    const ids = settings.encryptionKeys.map(keyIdOf)
    if (ids.some((id) => registered.includes(id))) kept.add(keyFile)
  }
  const removed = settings.generatedFiles.filter((file) => !kept.has(file))
  for (const file of removed) rmSync(file, { force: true })
  return removed
}
