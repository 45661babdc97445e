// D43: a file's chain of custody, kept in the audit chain (D18): `fichero_ingreso` (in the
// upload's transaction), `fichero_descarga` (committed before a byte is sent: the download's
// consultation entry, D29), `fichero_verificacion` and `fichero_exportacion` (a court package,
// package-source.ts). The field, the file's number and its SHA-256 are the entry's criteria.
import type { FieldSpec, ModuleSpec } from '../../compile/types.js'
import { CUSTODY_ACTIONS } from '../../records/evidence-package.js'
import { auditEntryFromRow, type AuditEvent } from '../audit/log.js'
import type { Row } from '../database.js'
import type { ReadOptions } from '../records/types.js'
import { SYSTEM_TABLES } from '../system-tables.js'
import type { FileContext } from './context.js'
import type { CustodyEntry, StoredFile } from './types.js'

/** A custody entry of an upload or a download, naming the request (D29). */
export function custodyEvent(
  spec: ModuleSpec,
  id: string,
  field: FieldSpec,
  file: StoredFile,
  read: ReadOptions & { readonly action: 'fichero_ingreso' | 'fichero_descarga'; readonly version: number },
): AuditEvent {
  return {
    userId: read.actor,
    action: read.action,
    module: spec.name,
    recordId: id,
    version: read.version,
    recordHash: null,
    fields: [field.name],
    address: read.request?.address ?? null,
    requestId: read.request?.requestId ?? null,
    motivo: read.request?.motivo ?? null,
    recordIds: read.action === 'fichero_descarga' ? [id] : null,
    criteria: { campo: field.name, n: file.n, sha256: file.sha256, size: file.size },
  }
}

/** The entries of file `n` of the field, in chain order, as `read` may see them (F2). */
export async function custodyOf(
  context: FileContext,
  spec: ModuleSpec,
  id: string,
  where: { readonly field: string; readonly n: number },
  read: ReadOptions & { readonly auditor: boolean },
): Promise<CustodyEntry[]> {
  const field = context.fileField(spec, where.field)
  await context.checkRecord(spec, id, { write: false, read })
  context.checkReadable(spec, field, read.user)
  await context.fileRow(spec, id, field.name, where.n)
  const rows = await context.options.database.db
    .selectFrom(SYSTEM_TABLES.audit)
    .selectAll()
    .where('module', '=', spec.name)
    .where('record_id', '=', id)
    .where('action', 'in', [...CUSTODY_ACTIONS])
    .orderBy('seq')
    .execute()
  return rows
    .map((row) => auditEntryFromRow(row as Row))
    .filter((e) => e.criteria?.['campo'] === field.name && e.criteria['n'] === where.n)
    .map((e): CustodyEntry => {
      // F2: who downloaded, from where and why only for the audit trail's holders.
      const shown = read.auditor || e.action !== 'fichero_descarga'
      const result = e.criteria?.['veredicto']
      return {
        seq: e.seq,
        at: e.at,
        action: e.action,
        user_id: shown ? e.user_id : null,
        sha256: typeof e.criteria?.['sha256'] === 'string' ? e.criteria['sha256'] : null,
        ...(typeof result === 'string' ? { result } : {}),
        ...(read.auditor ? { address: e.address, motivo: e.motivo } : {}),
        hash: e.hash,
      }
    })
}
