// A read that returns decrypted values leaves a 'consultar' entry per record, naming the
// fields, never the values (issue #3); entries go to the batched read-audit log.
import { META } from '../compile/metadata.js'
import type { ModuleSpec } from '../compile/types.js'
import { hiddenFields } from '../records/field-rules.js'
import type { AuditEvent } from './audit-log.js'
import type { Row } from './database.js'
import type { ReadAuditLog } from './read-audit.js'
import type { ReadOptions } from './record-store.js'

/** Audits the records whose encrypted values this read decrypts; a promise when the log asks the read to wait. */
export function auditReveal(
  log: ReadAuditLog,
  spec: ModuleSpec,
  rows: readonly Row[],
  { reveal, actor, user, fields: asked }: ReadOptions,
): Promise<void> | undefined {
  if (!reveal) return undefined
  // A field the reader cannot read (issue #14) or did not ask for (`fields=`, issue #16) is not
  // in the answer: not revealed.
  const hidden = hiddenFields(spec, user)
  const encrypted =
    hidden === undefined && asked === undefined
      ? spec.encryptedFields
      : spec.encryptedFields.filter((f) => !(hidden?.has(f.name) ?? false) && (asked?.has(f.name) ?? true))
  if (encrypted.length === 0) return undefined
  const names = encrypted.map((f) => f.name)
  const events: AuditEvent[] = []
  for (const row of rows) {
    // Most rows hold every encrypted field: share one list of names among their entries.
    const fields = encrypted.every((f) => row[f.column] !== null && row[f.column] !== undefined)
      ? names
      : encrypted.filter((f) => row[f.column] !== null && row[f.column] !== undefined).map((f) => f.name)
    if (fields.length > 0)
      events.push({
        userId: actor,
        action: 'consultar',
        module: spec.name,
        recordId: String(row[META.id]),
        version: Number(row[META.version]),
        recordHash: null,
        fields,
      })
  }
  return log.record(events)
}
