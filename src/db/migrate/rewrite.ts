// After the DDL of a migration: stored values that must change with it (a field turned
// encrypted or plain, an enum value renamed) and every `_hash` the new shape changes (renamed, archived fields),
// each change in the audit chain as `migrar`, so `records audit verify` still holds (D17, D18).
import { META } from '../../compile/metadata.js'
import type { FieldSpec, ModuleSpec } from '../../compile/types.js'
import { appendAudit, type AuditEvent } from '../audit/log.js'
import type { Database, Db, Row } from '../database.js'
import type { RecordCodec } from '../records/codec.js'
import type { MigrationStep } from './plan.js'
import { recordPages } from '../records/pages.js'

const PAGE = 500

/** Kinds after which stored rows may need new values or a new hash. */
const REWRITING: ReadonlySet<MigrationStep['kind']> = new Set([
  'rename_column',
  'encrypt_field',
  'decrypt_field',
  'remove_field',
  'change_type',
  'rename_enum_value',
])

export const rewritesData = (step: MigrationStep): boolean => REWRITING.has(step.kind)

interface FieldChange {
  readonly field: FieldSpec
  /** The field as it was stored before: its value is read with this view. */
  readonly stored: FieldSpec
  /** Enum values renamed, old -> new. */
  readonly renamed: ReadonlyMap<unknown, string>
  /** Every stored value is written again (a change of encryption), not only renamed ones. */
  readonly always: boolean
}

/** One change per field, whatever mix of steps concerns it (encrypted and renamed at once). */
function valueChanges(spec: ModuleSpec, steps: readonly MigrationStep[]): FieldChange[] {
  const changes = new Map<string, FieldChange>()
  for (const step of steps) {
    const kind = step.kind
    const rewrites = kind === 'encrypt_field' || kind === 'decrypt_field' || kind === 'rename_enum_value'
    if (step.table !== spec.name || !rewrites) continue
    const field = spec.fieldsByName.get(step.field)
    if (field === undefined) continue
    const change = changes.get(field.name) ?? { field, stored: field, renamed: new Map(), always: false }
    changes.set(
      field.name,
      step.kind === 'rename_enum_value'
        ? { ...change, renamed: new Map([...change.renamed, [step.from, step.to]]) }
        : { ...change, stored: { ...field, encrypted: step.kind === 'decrypt_field' }, always: true },
    )
  }
  return [...changes.values()]
}

export interface RewriteOptions {
  readonly database: Database
  readonly trx: Db
  readonly codec: RecordCodec
  readonly modules: readonly ModuleSpec[]
  readonly steps: readonly MigrationStep[]
  /** The audit time of the entries, `YYYY-MM-DD HH:MM:SS.mmm`. */
  readonly at: string
}

/** Rewrites what the steps require, deleted records included; returns how many records changed. */
export async function rewriteRecords(options: RewriteOptions): Promise<number> {
  const { trx, codec } = options
  await codec.beforeWrite(trx) // values it encrypts go under the database's active key
  let rewritten = 0
  for (const spec of options.modules) {
    const steps = options.steps.filter((s) => s.kind !== 'create_table' && s.table === spec.name && rewritesData(s))
    if (steps.length === 0) continue
    const changes = valueChanges(spec, steps)
    const touched = [
      ...new Set(
        steps.map((s) => ('field' in s ? s.field : s.kind === 'rename_column' ? s.to : '')).filter((f) => f !== ''),
      ),
    ]
    for await (const rows of recordPages(trx, spec, PAGE)) {
      const events: AuditEvent[] = []
      for (const row of rows) {
        const id = String(row[META.id])
        let next: Row = { ...row }
        const changed: FieldChange[] = []
        for (const change of changes) {
          const { field, stored, renamed, always } = change
          if (row[field.column] === null || row[field.column] === undefined) continue
          const plain = codec.plainValue(spec, stored, row)
          if (!always && !renamed.has(plain)) continue
          next = { ...next, ...codec.encode(spec, { [field.name]: renamed.get(plain) ?? plain }, id) }
          changed.push(change)
        }
        const hash = codec.hash(spec, next)
        if (hash === row[META.hash]) continue
        const set: Row = { [META.hash]: hash }
        for (const { field } of changed) {
          set[field.column] = next[field.column]
          if (field.blindIndexColumn !== undefined) set[field.blindIndexColumn] = next[field.blindIndexColumn]
        }
        await trx.updateTable(spec.table.name).set(set).where(META.id, '=', id).execute()
        events.push({
          userId: null,
          action: 'migrar',
          module: spec.name,
          recordId: id,
          version: Number(row[META.version]),
          recordHash: hash,
          fields: touched,
        })
      }
      await appendAudit({ database: options.database, trx, events, at: options.at })
      rewritten += events.length
    }
  }
  return rewritten
}
