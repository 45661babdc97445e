// How many stored values each key encrypted (issue #13): records of every module, deleted ones
// included. The audit log stores field names only, never values, so it holds no ciphertext.
import { sql } from 'kysely'
import type { ServiceSpec } from '../compile/types.js'
import type { Database } from './database.js'

/** Values per key id (`v1.<8 hex id>.…`), over every encrypted column. */
export async function keyUsage(database: Database, spec: ServiceSpec): Promise<Map<string, number>> {
  const usage = new Map<string, number>()
  for (const module of spec.modules)
    for (const field of module.encryptedFields) {
      const keyId = sql<string>`substr(${sql.ref(field.column)}, 4, 8)`
      const { rows } = await sql<{ key_id: string; n: number | string }>`select ${keyId} as key_id, count(*) as n
        from ${sql.table(module.table.name)} where ${sql.ref(field.column)} is not null group by ${keyId}`.execute(database.db)
      for (const row of rows) usage.set(row.key_id, (usage.get(row.key_id) ?? 0) + Number(row.n))
    }
  return usage
}
