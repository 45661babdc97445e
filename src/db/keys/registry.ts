// Which encryption keys the stored data may need, and which one every instance encrypts
// with. A key that encrypted values and is not configured any more is a startup error,
// never garbage output. The active key is the database's, not each instance's
// configuration: a rotation switches it for every instance at once.
import { keyMissing } from '../../errors.js'
import type { ChangeWatch } from '../change-watch.js'
import type { Keyring } from '../crypto.js'
import type { Database, Db } from '../database.js'
import { SYSTEM_TABLES } from '../system-tables.js'
import { preparedQuery } from '../prepared.js'

/** Change-watch key bumped whenever a key is switched or retired: instances reload their keys. */
export const KEYS_SIGNAL = '_keys'

/** Ids of the keys the stored data may use (the active one and those not yet retired). */
export async function registeredKeys(db: Db): Promise<string[]> {
  const rows = await db.selectFrom(SYSTEM_TABLES.keys).select('key_id').orderBy('key_id').execute()
  return rows.map((r) => String(r['key_id']))
}

/**
 * The key every write encrypts with. `lock`: inside a write transaction on PostgreSQL the row is
 * held shared until commit, so a switch waits for writes under the old key to end.
 */
export async function activeKeyOf(database: Database, db: Db = database.db, lock = false): Promise<string | undefined> {
  const query = lock && database.rowLocks ? activeKeyLocked : activeKey
  const row = (await db.executeQuery(query(db).bind({}))).rows[0]
  return row === undefined ? undefined : String(row['active_key_id'])
}

// Every write reads the active key (beforeWrite): compiled once, only re-bound.
const activeKeyQuery = (forShare: boolean) =>
  preparedQuery<never>((db) =>
    db
      .selectFrom(SYSTEM_TABLES.keyState)
      .select('active_key_id')
      .where('id', '=', 1)
      .$if(forShare, (q) => q.forShare()),
  )
const activeKey = activeKeyQuery(false)
const activeKeyLocked = activeKeyQuery(true)

/**
 * Refuses a keyring that lacks a key the data may use; returns the active key. On a first
 * start (or a database that does not yet record its active key) the configured first key becomes
 * the active one.
 */
export async function checkKeyRegistry(database: Database, keyring: Keyring): Promise<string> {
  const missing = (await registeredKeys(database.db)).filter((id) => !keyring.keys.has(id))
  if (missing.length > 0) throw keyMissing(missing)
  const active = await activeKeyOf(database)
  if (active !== undefined) return active
  await database.db.transaction().execute(async (trx) => {
    await trx
      .insertInto(SYSTEM_TABLES.keys)
      .values({ key_id: keyring.activeId })
      .onConflict((oc) => oc.column('key_id').doNothing())
      .execute()
    await trx
      .insertInto(SYSTEM_TABLES.keyState)
      .values({ id: 1, active_key_id: keyring.activeId })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute()
  })
  return (await activeKeyOf(database)) ?? keyring.activeId
}

/**
 * Makes `keyId` the key every instance encrypts with, from the commit on: writes read the
 * active key inside their transaction (shared lock on PostgreSQL, the one writer on SQLite).
 */
export async function switchActiveKey(database: Database, changes: ChangeWatch, keyId: string): Promise<void> {
  await database.db.transaction().execute(async (trx) => {
    await trx
      .insertInto(SYSTEM_TABLES.keys)
      .values({ key_id: keyId })
      .onConflict((oc) => oc.column('key_id').doNothing())
      .execute()
    await trx.updateTable(SYSTEM_TABLES.keyState).set({ active_key_id: keyId }).where('id', '=', 1).execute()
    await changes.bump(trx, KEYS_SIGNAL)
  })
}

/** After a complete rotation the data needs only the active key (running instances: see instance-heartbeat). */
export async function retireKeys(database: Database, changes: ChangeWatch, activeId: string): Promise<void> {
  await database.db.transaction().execute(async (trx) => {
    await trx.deleteFrom(SYSTEM_TABLES.keys).where('key_id', '!=', activeId).execute()
    await changes.bump(trx, KEYS_SIGNAL)
  })
}

/** Asks every running instance to re-read its configured keys (the key file) at its next heartbeat. */
export async function signalKeys(database: Database, changes: ChangeWatch): Promise<void> {
  await database.db.transaction().execute((trx) => changes.bump(trx, KEYS_SIGNAL))
}

/** `records keys retire`: one key leaves the registry (the caller checked nothing uses it); false if absent. */
export async function retireKey(database: Database, changes: ChangeWatch, keyId: string): Promise<boolean> {
  return database.db.transaction().execute(async (trx) => {
    const result = await trx.deleteFrom(SYSTEM_TABLES.keys).where('key_id', '=', keyId).executeTakeFirst()
    await changes.bump(trx, KEYS_SIGNAL)
    return Number(result.numDeletedRows) > 0
  })
}
