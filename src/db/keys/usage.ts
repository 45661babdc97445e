// How many stored values each key encrypted: records of every module, deleted
// ones included, their kept versions, the second factors' secrets (D42) and evidence files' keys (D43).
// Per-record data keys (D41) count under the field key that wraps them.
// The audit log stores field names only, never values, so it holds no ciphertext.
import { sql } from 'kysely'
import type { ServiceSpec } from '../../compile/types.js'
import type { Database } from '../database.js'
import type { RecordKeys } from './record-keys.js'
import { versionKeyIds } from '../records/versions.js'
import { SYSTEM_TABLES } from '../system-tables.js'
import { FILE_TABLES } from '../files/tables.js'
import { versionPages } from '../records/pages.js'

const PAGE = 1000

/** Values per key id (`v1.<8 hex id>.…`), over every encrypted column. */
export async function keyUsage(
  database: Database,
  spec: ServiceSpec,
  recordKeys?: Pick<RecordKeys, 'wrapUsage'>,
): Promise<Map<string, number>> {
  const usage = new Map<string, number>()
  // Values under a record's own key (`r1.…`, D41) count through that key, wrapped by a field key.
  for (const [keyId, n] of (await recordKeys?.wrapUsage()) ?? []) usage.set(keyId, (usage.get(keyId) ?? 0) + n)
  for (const module of spec.modules)
    for (const field of module.encryptedFields) {
      const keyId = sql<string>`substr(${sql.ref(field.column)}, 4, 8)`
      const { rows } = await sql<{ key_id: string; n: number | string }>`select ${keyId} as key_id, count(*) as n
        from ${sql.table(module.table.name)} where ${sql.ref(field.column)} like 'v1.%' group by ${keyId}`.execute(
        database.db,
      )
      for (const row of rows) usage.set(row.key_id, (usage.get(row.key_id) ?? 0) + Number(row.n))
    }
  const secretKey = sql<string>`substr(secret, 4, 8)`
  const { rows: secrets } = await sql<{ key_id: string; n: number | string }>`select ${secretKey} as key_id,
    count(*) as n from ${sql.table(SYSTEM_TABLES.secondFactors)} group by ${secretKey}`.execute(database.db)
  for (const row of secrets) usage.set(row.key_id, (usage.get(row.key_id) ?? 0) + Number(row.n))
  // Evidence files' own keys, wrapped by the field keys (D43).
  const fileKey = sql<string>`substr(file_key, 4, 8)`
  const { rows: fileKeys } = await sql<{ key_id: string; n: number | string }>`select ${fileKey} as key_id,
    count(*) as n from ${sql.table(FILE_TABLES.files)} group by ${fileKey}`.execute(database.db)
  for (const row of fileKeys) usage.set(row.key_id, (usage.get(row.key_id) ?? 0) + Number(row.n))
  for (const module of spec.modules) {
    if (module.encryptedFields.length === 0) continue
    // Versions holding a ciphertext, read in pages by key: the values are inside their JSON.
    for await (const versions of versionPages(database.db, module.name, PAGE, { ciphertext: true }))
      for (const version of versions)
        for (const id of versionKeyIds(module, version.data)) usage.set(id, (usage.get(id) ?? 0) + 1)
  }
  return usage
}
