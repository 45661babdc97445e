// THE one place where a query over a module's records starts: list, its total, get, history and
// the row a write locks all begin here, so a condition that must hold for every read or write of
// a module (today: not deleted) is added once, here, and no path can forget it.
import type { SelectQueryBuilder } from 'kysely'
import { META } from '../compile/metadata.js'
import type { ModuleSpec } from '../compile/types.js'
import type { Db, DynamicDb } from './database.js'

export interface RecordQueryOptions {
  /** History reads the records deleted too (D25); every other read sees live records only (D10). */
  readonly includeDeleted?: boolean
}

/** A query over one module's table with nothing selected yet. */
export type RecordQuery = SelectQueryBuilder<DynamicDb, string, {}>

/** The records of `spec` a read may see, before its own filters, columns, order and page. */
export function recordQuery(db: Db, spec: ModuleSpec, options: RecordQueryOptions = {}): RecordQuery {
  const all = db.selectFrom(spec.table.name)
  return options.includeDeleted === true ? all : all.where(META.deleted, 'is', null)
}
