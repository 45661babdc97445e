// After the DDL of a migration: the kept versions of records (D33) follow the
// fields they hold. A renamed field is renamed in them, a field turned encrypted is encrypted
// (no version keeps a clear value of an encrypted field), one turned plain is decrypted. Other
// changes (an enum value renamed, a type changed) leave them as they were: history says what
// the record said then.
import type { ModuleSpec } from '../../compile/types.js'
import { RECORD_VALUE_PREFIX } from '../crypto.js'
import type { Db, Row } from '../database.js'
import type { RecordCodec } from '../records/codec.js'
import type { MigrationStep } from './plan.js'
import { versionPages } from '../records/pages.js'
import { rewriteVersionData, type StoredVersion } from '../records/versions.js'
import { META } from '../../compile/metadata.js'

const PAGE = 500

/** A stored ciphertext: under the service key (`v1`) or its record's data key (`r1`, D41). */
const isCiphertext = (value: unknown): boolean =>
  typeof value === 'string' && (value.startsWith('v1.') || value.startsWith(RECORD_VALUE_PREFIX))

/** A version's values under the field names `steps` rename them to (the same object when none). */
function renamed(steps: readonly MigrationStep[], data: Row): Row {
  let out: Row = data
  for (const step of steps)
    if (step.kind === 'rename_column' && step.from in out) {
      const { [step.from]: value, ...rest } = out
      out = { ...rest, [step.to]: value }
    }
  return out
}

/** The version values `steps` change; undefined when none. */
function rewritten(
  spec: ModuleSpec,
  codec: RecordCodec,
  steps: readonly MigrationStep[],
  recordId: string,
  data: Row,
): Row | undefined {
  let out: Row = renamed(steps, data)
  let changed = out !== data
  for (const step of steps) {
    if (step.kind !== 'encrypt_field' && step.kind !== 'decrypt_field') continue
    const field = spec.fieldsByName.get(step.field)
    const value = out[step.field]
    if (field === undefined || value === null || value === undefined) continue
    const encrypted = isCiphertext(value)
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

/**
 * A module with record keys (D41): binds each record of the page whose versions gain an encrypted
 * value to its data key (the one its values use, a kept one, or a new one), before encoding.
 */
async function prepareRecordKeys(
  trx: Db,
  codec: RecordCodec,
  spec: ModuleSpec,
  steps: readonly MigrationStep[],
  versions: readonly StoredVersion[],
): Promise<void> {
  const encrypted = steps.flatMap((s) => (s.kind === 'encrypt_field' ? [s.field] : []))
  if (!codec.usesRecordKeys(spec) || encrypted.length === 0) return
  const gains = (data: Row) =>
    encrypted.some((f) => data[f] !== null && data[f] !== undefined && !isCiphertext(data[f]))
  // Under the new names: a field renamed and encrypted in one migration is found in its old name.
  const records = new Map<string, Row>()
  for (const version of versions) {
    const data = renamed(steps, version.data)
    if (!records.has(version.recordId) && gains(data))
      records.set(version.recordId, { [META.id]: version.recordId, ...codec.fromSnapshot(spec, data) })
  }
  await codec.prepareKeys(
    trx,
    spec,
    [...records].map(([id, row]) => ({ id, row })),
  )
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
    for await (const versions of versionPages(trx, spec.name, PAGE)) {
      await prepareRecordKeys(trx, codec, spec, mine, versions)
      for (const version of versions) {
        const data = rewritten(spec, codec, mine, version.recordId, version.data)
        if (data === undefined) continue
        await rewriteVersionData(trx, version, data)
        count += 1
      }
    }
  }
  return count
}
