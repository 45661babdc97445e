// Unique encrypted fields while two keys coexist. The unique index on a blind-index
// column only compares indexes made under the same key: during a rotation a value written under
// the new key would not collide with the same value still indexed under the old one. So, while
// more than one key is configured, a write looks the value up under every key first. Writes
// under different keys never overlap: a key switch waits for the writes under the old key.
import { META } from '../../compile/metadata.js'
import type { ModuleSpec } from '../../compile/types.js'
import { uniqueConflict } from '../../errors.js'
import type { Db, Row } from '../database.js'
import type { RecordCodec } from './codec.js'

/** Throws the 409 of a unique field whose value `values` (API values) repeat under any key. */
export async function checkEncryptedUnique(
  trx: Db,
  spec: ModuleSpec,
  codec: RecordCodec,
  values: Row,
  selfId: string,
): Promise<void> {
  for (const field of spec.encryptedFields) {
    const value = values[field.name]
    if (!field.def.unique || field.blindIndexColumn === undefined || value === null || value === undefined) continue
    const indexes = codec.blindIndexes(value)
    if (indexes.length < 2) continue // one key: the unique index alone decides
    const taken = await trx
      .selectFrom(spec.table.name)
      .select(META.id)
      .where(field.blindIndexColumn, 'in', [...indexes])
      .where(META.deleted, 'is', null)
      .where(META.id, '!=', selfId)
      .limit(1)
      .executeTakeFirst()
    if (taken !== undefined) throw uniqueConflict(field.name)
  }
}
