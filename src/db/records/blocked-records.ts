// Blocked records (D41) on the paths that answer for one record by id. Lists, totals, searches,
// exports, `expand` and the live feed never see them (query.ts notBlocked); a GET, history or
// past version of one in the caller's scope (outside it: 404 first) is 403 `Registro bloqueado`
// but for a role holding `{module}.bloqueados` that gives a motivo (logged as a consultation,
// D29); a write (edit, workflow move, delete) is 403 for everyone: blocking restricts processing,
// and `desbloquear` is the way back.
import { sql } from 'kysely'
import { META } from '../../compile/metadata.js'
import type { ModuleSpec } from '../../compile/types.js'
import { blockedMotivoRequired, blockedRecord } from '../../errors.js'
import type { Db, Row } from '../database.js'
import { SYSTEM_TABLES } from '../system-tables.js'
import { blockedRowsOf, type RecordQuery } from './query.js'
import type { ReadOptions } from './types.js'

/** The column a read by id adds to its row: whether the record is blocked (withBlockedFlag). */
const BLOCKED_FLAG = '_blocked_now'

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

/** How many records of `spec` a `bloquear` decision blocks now (0 in a module without `retention:`). */
export async function blockedCount(db: Db, spec: ModuleSpec): Promise<number> {
  if (spec.retention === undefined) return 0
  const row = await db
    .selectFrom(SYSTEM_TABLES.retention)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('module', '=', spec.name)
    .where('blocked_at', 'is not', null)
    .executeTakeFirst()
  return Number(row?.['n'] ?? 0)
}

/**
 * `query` (of one record) with a column saying whether that record is blocked: the GET learns it
 * from the row it reads, not from a second statement (on PostgreSQL a second round trip).
 * `blockedFlagOf` takes the column back off the row. Nothing added without `retention:`.
 */
export function withBlockedFlag(spec: ModuleSpec, query: RecordQuery): RecordQuery {
  if (spec.retention === undefined) return query
  const id = sql.ref(`${spec.table.name}.${META.id}`)
  return query.select(
    sql<boolean>`exists (select 1 from ${blockedRowsOf(spec, '_bkf')} and ${sql.ref('_bkf.record_id')} = ${id})`.as(
      BLOCKED_FLAG,
    ),
  )
}

/** Whether the row read through withBlockedFlag is of a blocked record; the flag is removed from `row`. */
export function blockedFlagOf(row: Row): boolean {
  const flag = row[BLOCKED_FLAG]
  delete row[BLOCKED_FLAG]
  // PostgreSQL answers a boolean, SQLite 0 or 1.
  return flag === true || Number(flag) === 1
}

/**
 * A read of one record the caller's scope holds: whether it is blocked and may be read (then its
 * consultation is logged whatever the module), or 403, or 400 without a motivo. The service's own
 * reads (no acting user: an account's sign-in, `/me`) are not requests for a record and pass.
 */
export async function checkBlockedRead(db: Db, spec: ModuleSpec, id: string, read: ReadOptions): Promise<boolean> {
  return read.user !== null && allowBlockedRead(spec, await isBlocked(db, spec, id), read)
}

/** checkBlockedRead once whether the record is blocked is known (a GET's row says it: withBlockedFlag). */
export function allowBlockedRead(spec: ModuleSpec, blocked: boolean, read: ReadOptions): boolean {
  // The service's own reads (no acting user) pass, and are no consultation of a blocked record.
  if (read.user === null || !blocked) return false
  if (read.readBlocked !== true) throw blockedRecord(spec.permissions.bloqueados)
  if ((read.request?.motivo ?? null) === null) throw blockedMotivoRequired(spec.name)
  return true
}

/** A write of one record (locked, in the caller's scope): 403 while it is blocked, for everyone. */
export async function checkBlockedWrite(trx: Db, spec: ModuleSpec, id: string): Promise<void> {
  if (await isBlocked(trx, spec, id)) throw blockedRecord()
}
