// Blocked records (D41) on the paths that answer for one record by id. Lists, totals, searches,
// exports, `expand` and the live feed never see them (query.ts notBlocked); a GET, history or
// past version of one in the caller's scope (outside it: 404 first) is 403 `Registro bloqueado`
// but for a role holding `{module}.bloqueados` that gives a motivo (logged as a consultation,
// D29); a write (edit, workflow move, delete) is 403 for everyone: blocking restricts processing,
// and `desbloquear` is the way back.
import type { ModuleSpec } from '../../compile/types.js'
import { blockedMotivoRequired, blockedRecord } from '../../errors.js'
import type { Db } from '../database.js'
import { SYSTEM_TABLES } from '../system-tables.js'
import type { ReadOptions } from './types.js'

/** Whether a `bloquear` decision is in force on `id` (false in a module without `retention:`). */
export async function isBlocked(db: Db, spec: ModuleSpec, id: string): Promise<boolean> {
  if (spec.retention === undefined) return false
  const row = await db
    .selectFrom(SYSTEM_TABLES.retention)
    .select('record_id')
    .where('module', '=', spec.name)
    .where('record_id', '=', id)
    .where('blocked_at', 'is not', null)
    .executeTakeFirst()
  return row !== undefined
}

/**
 * A read of one record the caller's scope holds: whether it is blocked and may be read (then its
 * consultation is logged whatever the module), or 403, or 400 without a motivo. The service's own
 * reads (no acting user: an account's sign-in, `/me`) are not requests for a record and pass.
 */
export async function checkBlockedRead(db: Db, spec: ModuleSpec, id: string, read: ReadOptions): Promise<boolean> {
  // The service's own reads (no acting user) pass, and are no consultation of a blocked record.
  if (read.user === null || !(await isBlocked(db, spec, id))) return false
  if (read.readBlocked !== true) throw blockedRecord(spec.permissions.bloqueados)
  if ((read.request?.motivo ?? null) === null) throw blockedMotivoRequired(spec.name)
  return true
}

/** A write of one record (locked, in the caller's scope): 403 while it is blocked, for everyone. */
export async function checkBlockedWrite(trx: Db, spec: ModuleSpec, id: string): Promise<void> {
  if (await isBlocked(trx, spec, id)) throw blockedRecord()
}
