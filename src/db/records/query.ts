// THE one place where a query over a module's records starts: list, its total, get, history and
// the row a write locks all begin here, so a condition that must hold for every read or write of
// a module (not deleted; the caller's record scope; not blocked, D41) is added once, here, and no
// path can forget it.
import { sql, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely'
import { META, ROW_COLUMN } from '../../compile/metadata.js'
import type { Dialect } from '../../compile/field-types.js'
import type { ModuleSpec } from '../../compile/types.js'
import { resolveScope, type ResolvedScope, type ScopeAction } from '../../records/scope.js'
import type { ActingUser } from '../../records/acting-user.js'
import type { Db, DynamicDb } from '../database.js'
import { SYSTEM_TABLES } from '../system-tables.js'
import { scopeCondition, scopePageIds, type BranchPage, type ScopeSqlOptions } from './scope-sql.js'

export interface RecordQueryOptions {
  /** History reads the records deleted too (D25); every other read sees live records only (D10). */
  readonly includeDeleted?: boolean
  /**
   * The records `user` may read (or change, `action: 'write'`) under their role's scope: a WHERE
   * of the same SQL on both databases, never a filter after the query. Null: no scope.
   */
  readonly user: ActingUser | null
  readonly action?: ScopeAction
  /** Where the scope's literal values are converted for the column (booleans, numbers). */
  readonly dialect: Dialect
  /** A list page: each branch of an or-ed scope yields only what the page can need (scope-sql.ts). */
  readonly page?: BranchPage
  /**
   * Blocked records (D41) too. Every read that returns records leaves them out, for everyone; a
   * path that answers for one record by id keeps them and decides itself (blocked-records.ts:
   * GET, history and versions 403 but for `{module}.bloqueados`, writes 403), as do the
   * retention clocks (which must see a block to lift it) and the audit trail's ids.
   */
  readonly includeBlocked?: boolean
}

/** A query over one module's table with nothing selected yet. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- Kysely's own type for "no columns selected yet"
export type RecordQuery = SelectQueryBuilder<DynamicDb, string, {}>

/** The records of `spec` a read may see, before its own filters, columns, order and page. */
export function recordQuery(db: Db, spec: ModuleSpec, options: RecordQueryOptions): RecordQuery {
  const all = db.selectFrom(spec.table.name)
  const live = options.includeDeleted === true ? all : all.where(META.deleted, 'is', null)
  const records = options.includeBlocked === true ? live : notBlocked(spec, live)
  const scope = resolveScope(spec, options.user, options.action ?? 'read')
  if (scope === undefined) return records
  // Deleted rows are outside the live partial indexes the SQLite form searches: plain OR (history reads one id).
  const plainOr = options.includeDeleted === true
  const sqlOptions = { dialect: options.dialect, table: spec.table.name }
  return records.where((eb) => scopeCondition(eb, scope, sqlOptions, plainOr, options.page))
}

type Page = { readonly limit: number; readonly offset: number }

/**
 * Leaves out the records of `spec` that a `bloquear` decision blocks (D41); only a module with
 * `retention:` can have them, the others' queries stay as they were. Both subqueries are
 * uncorrelated, run once per query: while no record of the module is blocked, the first answers
 * every row (one probe of `_retention`'s partial index of blocked rows) and a page still walks
 * the live rows' index without opening a row it skips (D40); once some are, each row's `_row`,
 * which that index holds, is looked up in the blocked records' rows (their ids through the
 * unique index on `_id`). The module's name is a literal (a validated identifier of modules.yaml):
 * SQLite prepares anew, at every run, a statement whose bound value is weighed against a partial
 * index, and plain pages keep only their limit and offset bound (D40).
 */
export function notBlocked(spec: ModuleSpec, query: RecordQuery): RecordQuery {
  if (spec.retention === undefined) return query
  const table = spec.table.name
  return query.where(
    sql<SqlBool>`(not exists (select 1 from ${blockedRowsOf(spec, '_blk')}) or ${sql.ref(`${table}.${ROW_COLUMN}`)} not in (select ${sql.ref(`_blr.${ROW_COLUMN}`)} from ${sql.table(table)} as ${sql.id('_blr')}, ${blockedRowsOf(spec, '_blb')} and ${sql.ref('_blb.record_id')} = ${sql.ref(`_blr.${META.id}`)}))`,
  )
}

/** `_retention as <alias> where` its rows of `spec`'s blocked records: a FROM for `select`, to `and` more onto. */
export function blockedRowsOf(spec: ModuleSpec, alias: string): RawBuilder<unknown> {
  return sql`${sql.table(SYSTEM_TABLES.retention)} as ${sql.id(alias)} where ${sql.ref(`${alias}.module`)} = ${sql.lit(spec.name)} and ${sql.ref(`${alias}.blocked_at`)} is not null`
}

/**
 * A query of every live record (no filter, scope or search) stated so that it may walk the live
 * rows' index (D40): that index's WHERE also holds `_id <> ''`, true of every record and written
 * by these queries only. A filtered query leaves it out, so SQLite's planner, which has no
 * statistics, never takes the index over a field's own index or a scan of the table.
 */
export const everyLiveRow = (query: RecordQuery): RecordQuery =>
  // A literal, not a bound value: SQLite prepares anew, at every run, a statement whose choice of
  // a partial index depends on a bound value.
  query.where(sql<SqlBool>`${sql.ref(META.id)} <> ''`)

/**
 * An unfiltered page in creation order of an or-ed scope: the page's rows chosen by their ids
 * from the branches' indexes (scope-sql.ts scopePageIds), then read, and only they.
 */
function idPage(
  db: Db,
  spec: ModuleSpec,
  scope: ResolvedScope & { kind: 'any' },
  options: ScopeSqlOptions,
  page: Page & NoneBlocked,
): RecordQuery {
  return unlessNoneBlocked(spec, db.selectFrom(options.table).where(META.deleted, 'is', null), page).where((eb) => {
    const ids = scopePageIds(eb, scope, options, page)
    return ids === undefined ? sql<SqlBool>`1 = 0` : eb(ROW_COLUMN, 'in', ids)
  })
}

/** A plain page of a module known to hold no blocked record (D41) at the generation it reads. */
type NoneBlocked = { readonly noneBlocked?: boolean }

/** notBlocked, but for a page that knows no record of the module is blocked: its filter would skip nothing. */
const unlessNoneBlocked = (spec: ModuleSpec, query: RecordQuery, { noneBlocked }: NoneBlocked): RecordQuery =>
  noneBlocked === true ? query : notBlocked(spec, query)

/**
 * The columns a page reads: every one, or (`columns`, a read that shows some fields only) those.
 * Table-qualified: a text search joins its index.
 */
export function selectColumns(query: RecordQuery, table: string, columns: readonly string[] | undefined) {
  return columns === undefined ? query.selectAll(table) : query.select(columns.map((c) => `${table}.${c}` as never))
}

/**
 * A plain list page (no filter, no sort, no text search) of the live records in `scope`
 * (undefined: all of them), every column or `columns`, in creation order: an or-ed scope's page by
 * its ids (idPage), any other as recordQuery pages it. With `converted`, the scope's values,
 * the limit and the offset may be a prepared statement's placeholders (plain-page.ts). With
 * `noneBlocked` (the caller knows no record of the module is blocked, D41) the page leaves out the
 * blocked records' filter, which SQLite otherwise weighs on every row the offset skips.
 */
export function plainPageQuery(
  db: Db,
  spec: ModuleSpec,
  scope: ResolvedScope | undefined,
  options: Omit<ScopeSqlOptions, 'table'> & Page & NoneBlocked & { readonly columns?: readonly string[] | undefined },
) {
  const table = spec.table.name
  const sqlOptions = { dialect: options.dialect, table, converted: options.converted === true }
  if (scope?.kind === 'any')
    return selectColumns(
      idPage(db, spec, scope as ResolvedScope & { kind: 'any' }, sqlOptions, options),
      table,
      options.columns,
    ).orderBy(ROW_COLUMN, 'asc')
  const live = unlessNoneBlocked(spec, db.selectFrom(table).where(META.deleted, 'is', null), options)
  return selectColumns(
    scope === undefined ? everyLiveRow(live) : live.where((eb) => scopeCondition(eb, scope, sqlOptions)),
    table,
    options.columns,
  )
    .orderBy(ROW_COLUMN, 'asc')
    .limit(options.limit)
    .offset(options.offset)
}

/** Whether `user` has a scope in `spec` (a prepared statement without one serves the others). */
export const isScoped = (spec: ModuleSpec, user: ActingUser | null, action: ScopeAction = 'read'): boolean =>
  resolveScope(spec, user, action) !== undefined
