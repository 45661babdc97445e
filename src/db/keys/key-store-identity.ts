// The identity of an SQLite key store (D41): a random id written at creation into both the records'
// database and its `records-keys.db`, compared at every open. The two are separate files, so
// either may be lost or swapped on its own; a records database whose values are under record keys
// opened with a missing or foreign key store would read every value as erased. The open refuses
// instead, naming the file. A records database from before the identity takes the key store's (or
// a new one) at its first open.
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { sql } from 'kysely'
import { settingInvalid } from '../../errors.js'
import type { Db } from '../database.js'
import { SYSTEM_TABLES } from '../system-tables.js'

/** One row (id 1) in each of the two files: the identity they share. */
export const KEY_STORE_IDENTITY_TABLE = '_record_keys_identity'

const RESTORE_HINT =
  'restaure el fichero de claves desde su copia (docs/operators.md, «The key store of per-record keys» y «Restore a backup»)'

async function createIdentityTable(db: Db): Promise<void> {
  await db.schema
    .createTable(KEY_STORE_IDENTITY_TABLE)
    .ifNotExists()
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('identity', 'text', (c) => c.notNull())
    .execute()
}

async function identityIn(db: Db): Promise<string | undefined> {
  await createIdentityTable(db)
  const row = await db.selectFrom(KEY_STORE_IDENTITY_TABLE).select('identity').where('id', '=', 1).executeTakeFirst()
  return row === undefined ? undefined : String(row['identity'])
}

async function writeIdentity(db: Db, identity: string): Promise<void> {
  await db.insertInto(KEY_STORE_IDENTITY_TABLE).values({ id: 1, identity }).execute()
}

/**
 * Whether a kept version holds a value under a record key (every record written has one). A
 * database not migrated yet (a `records copy` target, a first start) has no versions table: none.
 */
async function holdsRecordKeyValues(db: Db): Promise<boolean> {
  const { rows } = await sql<{
    name: string
  }>`select name from sqlite_master where type = 'table' and name = ${SYSTEM_TABLES.versions}`.execute(db)
  if (rows.length === 0) return false
  const row = await db
    .selectFrom(SYSTEM_TABLES.versions)
    .select('record_id')
    .where('data', 'like', '%"r1.%')
    .limit(1)
    .executeTakeFirst()
  return row !== undefined
}

/**
 * Before the key store is opened (it would be created empty): refuses a missing `keyFile` when the
 * records' database says it had one (its identity) or holds values under record keys.
 */
export async function refuseMissingKeyStore(records: Db, recordsFile: string, keyFile: string): Promise<void> {
  if (existsSync(keyFile)) return
  if ((await identityIn(records)) === undefined && !(await holdsRecordKeyValues(records))) return
  throw settingInvalid(
    `Falta el almacén de claves de datos por registro ${keyFile}: la base de datos ${recordsFile} tiene valores cifrados con ellas (D41) y sin él se leerían como suprimidos. No se crea uno vacío: ${RESTORE_HINT}`,
  )
}

/**
 * Once both are open: the same identity in each, or a refusal naming the key file. A side without
 * one (created just now, or from before identities) takes the other's, or both a new one.
 */
export async function bindKeyStoreIdentity(records: Db, keys: Db, keyFile: string): Promise<void> {
  const own = await identityIn(records)
  const kept = await identityIn(keys)
  if (own !== undefined && kept !== undefined && own !== kept)
    throw settingInvalid(
      `El almacén de claves de datos ${keyFile} no es el de esta base de datos (identidad ${kept}, se esperaba ${own}): ${RESTORE_HINT}`,
    )
  const identity = own ?? kept ?? randomBytes(16).toString('hex')
  // The key store first: a crash in between leaves a records database that adopts it next time.
  if (kept === undefined) await writeIdentity(keys, identity)
  if (own === undefined) await writeIdentity(records, identity)
}
