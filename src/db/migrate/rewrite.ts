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

interface RowRewrite {
  readonly row: Row
  /** The changes whose field takes a new value, each with its plain value to encode. */
  readonly values: readonly { readonly change: FieldChange; readonly plain: unknown }[]
}

/** What one stored row's changed fields become; their encoding waits for the record keys. */
function planRow(codec: RecordCodec, spec: ModuleSpec, changes: readonly FieldChange[], row: Row): RowRewrite {
  const values: { change: FieldChange; plain: unknown }[] = []
  for (const change of changes) {
    const { field, stored, renamed, always } = change
    if (row[field.column] === null || row[field.column] === undefined) continue
    const plain = codec.plainValue(spec, stored, row)
    if (!always && !renamed.has(plain)) continue
    values.push({ change, plain: renamed.get(plain) ?? plain })
  }
  return { row, values }
}

/**
 * Binds each record that encrypts a value to its data key (D41): the one its values use, a kept
 * one or a new one, as a write of the store does; nothing for a module without record keys.
 */
async function prepareRecordKeys(options: RewriteOptions, spec: ModuleSpec, plans: readonly RowRewrite[]) {
  if (!options.codec.usesRecordKeys(spec)) return
  const encrypting = plans.filter((p) => p.values.some((v) => v.change.field.encrypted))
  const records = encrypting.map((p) => ({ id: String(p.row[META.id]), row: p.row }))
  await options.codec.prepareKeys(options.trx, spec, records)
}

/** Writes one planned row (its new values and `_hash`); the audit event, or undefined when unchanged. */
async function writeRow(options: RewriteOptions, spec: ModuleSpec, plan: RowRewrite, touched: string[]) {
  const { row, values } = plan
  const id = String(row[META.id])
  let next: Row = { ...row }
  for (const { change, plain } of values)
    next = { ...next, ...options.codec.encode(spec, { [change.field.name]: plain }, id) }
  const hash = options.codec.hash(spec, next)
  if (hash === row[META.hash]) return undefined
  const set: Row = { [META.hash]: hash }
  for (const { change } of values) {
    const { field } = change
    set[field.column] = next[field.column]
    if (field.blindIndexColumn !== undefined) set[field.blindIndexColumn] = next[field.blindIndexColumn]
  }
  await options.trx.updateTable(spec.table.name).set(set).where(META.id, '=', id).execute()
  const event: AuditEvent = {
    userId: null,
    action: 'migrar',
    module: spec.name,
    recordId: id,
    version: Number(row[META.version]),
    recordHash: hash,
    fields: touched,
  }
  return event
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
      const plans = rows.map((row) => planRow(codec, spec, changes, row))
      await prepareRecordKeys(options, spec, plans)
      const events: AuditEvent[] = []
      for (const plan of plans) {
        const event = await writeRow(options, spec, plan, touched)
        if (event !== undefined) events.push(event)
      }
      await appendAudit({ database: options.database, trx, events, at: options.at })
      rewritten += events.length
    }
  }
  return rewritten
}
