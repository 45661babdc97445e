// Consultations: a read of a module holding personal data (or one the reader's role
// must justify, F3), a search through an encrypted field, or a read that decrypts values leaves
// ONE 'consultar' entry per request, naming who, when, from where, why, the ids returned, the
// fields shown (never their values) and the criteria (an encrypted field's value only as its
// keyed blind-index hash). Entries go to the batched read-audit log.
import { META } from '../../compile/metadata.js'
import type { FieldSpec, ModuleSpec } from '../../compile/types.js'
import { hiddenFields } from '../../records/field-rules.js'
import type { AuditEvent } from '../audit/log.js'
import type { Row } from '../database.js'
import type { ReadAuditLog } from '../audit/read-audit.js'
import type { ReadOptions } from './types.js'

export interface ConsultationDetail {
  /** The record a read by id (or a write's answer) returned; null for a list. */
  readonly recordId?: string | null
  /** The search criteria, encrypted values already as their blind-index hashes. */
  readonly criteria?: Readonly<Record<string, unknown>> | null
  /** The read searched through an encrypted field: a consultation even in a module without personal data. */
  readonly searchedEncrypted?: boolean
  /** Only a reveal of encrypted values counts (a write's answer: the write has its own entry). */
  readonly revealOnly?: boolean
  /** The names listed as read, when not the record fields (a history: `_historial`). */
  readonly fields?: readonly string[]
  /** A blocked record read by a `{module}.bloqueados` holder (D41): a consultation in any module. */
  readonly blocked?: boolean
}

const present = (rows: readonly Row[], field: FieldSpec) =>
  rows.some((row) => row[field.column] !== null && row[field.column] !== undefined)

/** The consultation entry of one request, or undefined when the read is not a consultation. */
export function consultationEvent(
  spec: ModuleSpec,
  rows: readonly Row[],
  { reveal, actor, user, request, logConsultation, fields: asked }: ReadOptions,
  detail: ConsultationDetail = {},
): AuditEvent | undefined {
  if (logConsultation === false) return undefined
  // A field the reader cannot read or did not ask for (`fields=`) is not
  // in the answer: not revealed.
  const hidden = hiddenFields(spec, user)
  const visible = (f: FieldSpec) => !(hidden?.has(f.name) ?? false) && (asked?.has(f.name) ?? true)
  const revealed = reveal ? spec.encryptedFields.filter((f) => visible(f) && present(rows, f)) : []
  // A read the reader's role must justify (`motivo_requerido:`) is a consultation like one of personal data (F3).
  const justified =
    detail.blocked === true || (user !== null && spec.def.motivoRequired?.consultar?.includes(user.role) === true)
  const personal = (spec.def.personalData === true || justified) && detail.revealOnly !== true
  if (!personal && revealed.length === 0 && detail.searchedEncrypted !== true) return undefined
  const fields =
    detail.fields ??
    (personal
      ? spec.fields
          .filter((f) => visible(f) && !f.writeOnly && (!f.encrypted || revealed.includes(f)))
          .map((f) => f.name)
      : revealed.map((f) => f.name))
  const single = detail.recordId !== undefined && detail.recordId !== null ? rows[0] : undefined
  return {
    userId: actor,
    action: 'consultar',
    module: spec.name,
    recordId: detail.recordId ?? null,
    version:
      single?.[META.version] === undefined || single[META.version] === null ? null : Number(single[META.version]),
    recordHash: null,
    fields,
    address: request?.address ?? null,
    requestId: request?.requestId ?? null,
    motivo: request?.motivo ?? null,
    recordIds: rows.map((row) => String(row[META.id])),
    criteria: detail.criteria ?? null,
  }
}

/** Logs a request's consultation; a promise when the log asks the read to wait (backlog full). */
export function auditConsultation(
  log: ReadAuditLog,
  spec: ModuleSpec,
  rows: readonly Row[],
  read: ReadOptions,
  detail?: ConsultationDetail,
): Promise<void> | undefined {
  const event = consultationEvent(spec, rows, read, detail)
  // A write's answer is recorded even while the log is full: the write has committed (F1).
  return event === undefined ? undefined : log.record([event], detail?.revealOnly === true)
}

/** The store's consultation entry of a read, unless the store keeps none (the bench's comparison). */
export function storeConsultation(
  store: { readonly consultationLog?: boolean; readonly readAudit: ReadAuditLog },
  spec: ModuleSpec,
  rows: readonly Row[],
  read: ReadOptions,
  detail: ConsultationDetail,
): Promise<void> | undefined {
  return store.consultationLog === false ? undefined : auditConsultation(store.readAudit, spec, rows, read, detail)
}
