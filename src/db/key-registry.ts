// Which encryption keys the stored data may need. A key that encrypted values and is
// not configured any more is a startup error, never garbage output (issue #3).
import { keyMissing } from '../errors.js'
import type { Database } from './database.js'
import type { Keyring } from './crypto.js'
import { SYSTEM_TABLES } from './migrate/system-tables.js'

/** Refuses a keyring that lacks a key the data may use, then records the active key. */
export async function checkKeyRegistry(database: Database, keyring: Keyring): Promise<void> {
  const rows = await database.db.selectFrom(SYSTEM_TABLES.keys).select('key_id').execute()
  const missing = rows.map((r) => String(r['key_id'])).filter((id) => !keyring.keys.has(id))
  if (missing.length > 0) throw keyMissing(missing)
  await database.db.insertInto(SYSTEM_TABLES.keys).values({ key_id: keyring.activeId })
    .onConflict((oc) => oc.column('key_id').doNothing()).execute()
}

/** After a complete rotation only the active key is needed. */
export async function retireKeys(database: Database, activeId: string): Promise<void> {
  await database.db.deleteFrom(SYSTEM_TABLES.keys).where('key_id', '!=', activeId).execute()
}
