// After the DDL of a migration: the kept versions of records (D33) follow the
// fields they hold. A renamed field is renamed in them, a field turned encrypted is encrypted
// (no version keeps a clear value of an encrypted field), one turned plain is decrypted. Other
// changes (an enum value renamed, a type changed) leave them as they were: history says what
// the record said then.
import type { ModuleSpec } from '../../compile/types.js'
import type { Db, Row } from '../database.js'
import type { RecordCodec } from '../records/codec.js'
import type { MigrationStep } from './plan.js'
import { versionPages } from '../records/pages.js'
import { rewriteVersionData } from '../records/versions.js'

const PAGE = 500

/** The version values `steps` change; undefined when none. */
function rewritten(
  spec: ModuleSpec,
  codec: RecordCodec,
  steps: readonly MigrationStep[],
  recordId: string,
  data: Row,
): Row | undefined {
  let out: Row = data
  let changed = false
  for (const step of steps)
    if (step.kind === 'rename_column' && step.from in out) {
      const { [step.from]: value, ...rest } = out
      out = { ...rest, [step.to]: value }
      changed = true
    }
  for (const step of steps) {
    if (step.kind !== 'encrypt_field' && step.kind !== 'decrypt_field') continue
    const field = spec.fieldsByName.get(step.field)
    const value = out[step.field]
    if (field === undefined || value === null || value === undefined) continue
    const encrypted = typeof value === 'string' && value.startsWith('v1.')
    if (step.kind === 'encrypt_field' && !encrypted)
      out = { ...out, [field.name]: codec.encode(spec, { [field.name]: value }, recordId)[field.column] }
    else if (step.kind === 'decrypt_field' && encrypted)
      out = {
        ...out,
        [field.name]: codec.plainValue(spec, { ...field, encrypted: true }, { _id: recordId, [field.column]: value }),
      }
    else continue
    changed = true
  }
  return changed ? out : undefined
}

/** Rewrites the versions the steps concern, inside the migration's transaction; returns how many changed. */
export async function rewriteVersions(
  trx: Db,
  codec: RecordCodec,
  modules: readonly ModuleSpec[],
  steps: readonly MigrationStep[],
): Promise<number> {
  let count = 0
  for (const spec of modules) {
    const mine = steps.filter(
      (s) =>
        (s.kind === 'rename_column' || s.kind === 'encrypt_field' || s.kind === 'decrypt_field') &&
        s.table === spec.name &&
        (s.kind !== 'rename_column' || spec.fieldsByName.has(s.to)),
    )
    if (mine.length === 0) continue
    for await (const versions of versionPages(trx, spec.name, PAGE))
      for (const version of versions) {
        const data = rewritten(spec, codec, mine, version.recordId, version.data)
        if (data === undefined) continue
        await rewriteVersionData(trx, version, data)
        count += 1
      }
  }
  return count
}
