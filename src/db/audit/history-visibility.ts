// Who sees what of a record's audit entries (F2, D25, D29). A consultation entry says who read a
// file, from where, under which request and why (an internal-affairs reference, say): shown to
// whoever may read the record, it tips off an investigation. So a record's history holds its
// consultations (and disclosures, integrity alerts) and the request columns of any entry only
// for holders of the audit trail's permission; everyone else sees the record's changes, each as
// the chain columns the API reference lists. Every list of a record's entries passes here.
import { AUDIT_CHAIN_COLUMNS } from '../../compile/audit-columns.js'
import type { AuditAction, AuditEntry } from './log.js'

/** The actions that change a stored record (its values, or its encryption and `_hash`). */
export const RECORD_CHANGE_ACTIONS: ReadonlySet<AuditAction> = new Set([
  'crear',
  'importar',
  'editar',
  'eliminar',
  'migrar',
  'recifrar',
])

/** An entry as a reader of a record's history gets it: the request columns only for an auditor. */
export type ShownAuditEntry = Pick<AuditEntry, (typeof AUDIT_CHAIN_COLUMNS)[number]> & Partial<AuditEntry>

/**
 * The entries `auditor` (holder of the audit trail's `ver`) may see, in order: all of them as
 * stored; otherwise the record's changes only (an allow-list: a new kind of entry stays hidden
 * until named here), each without who asked from where and why.
 */
export function entriesShownTo(entries: readonly AuditEntry[], auditor: boolean): ShownAuditEntry[] {
  if (auditor) return [...entries]
  return entries
    .filter((entry) => RECORD_CHANGE_ACTIONS.has(entry.action))
    .map((entry) => Object.fromEntries(AUDIT_CHAIN_COLUMNS.map((key) => [key, entry[key]])) as ShownAuditEntry)
}
