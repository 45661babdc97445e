// A resolved record scope as a WHERE condition on SQLite and PostgreSQL: equality
// and IN on indexed columns, or-ed and and-ed; never a filter after the query.
import { sql, type Expression, type ExpressionBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely'
import type { ResolvedScope } from '../../records/scope.js'
import type { Dialect } from '../../compile/field-types.js'
import { META, ROW_COLUMN } from '../../compile/metadata.js'
import { VALUE_CONVERSIONS } from '../dialects/values.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- module tables are declared at run time
type AnyBuilder = ExpressionBuilder<any, any>
// eslint-disable-next-line @typescript-eslint/no-explicit-any, @typescript-eslint/no-empty-object-type -- as above
type BranchRows = SelectQueryBuilder<any, any, {}>

/**
 * A list page's own filters, order and `offset + limit` applied inside each branch of an or-ed
 * scope: the page's rows are among the first `offset + limit` of some branch, so no branch needs
 * to yield more. Without it the IN list holds every record in scope (50,000 for an agente at 1M
 * denuncias) before the page takes 100 of them.
 */
export type BranchPage = (rows: BranchRows) => BranchRows

/** Where a scope's SQL goes and how its values arrive. */
export interface ScopeSqlOptions {
  /** Where the scope's literal values are converted for their column (booleans, JSON). */
  readonly dialect: Dialect
  readonly table: string
  /**
   * The values are already in their column's form: a prepared statement's placeholders
   * (scopePlaceholders), each bound later to a value scopeParameters converted. Never converted twice.
   */
  readonly converted?: boolean
}

/**
 * The live rows of one branch of an or-ed scope, nothing selected yet: the branch's own
 * condition (nested: no UNION inside a branch), searched through its index.
 */
function branchRows(eb: AnyBuilder, branch: ResolvedScope, options: ScopeSqlOptions): BranchRows {
  return eb
    .selectFrom(options.table)
    .where(META.deleted, 'is', null)
    .where((inner) => scopeCondition(inner, branch, options, true))
}

/**
 * The scope as a condition on `table`. On SQLite an or-ed scope becomes `_row IN (the live rows
 * of each branch, each found through its own index, UNION ALL)`: given a plain OR, SQLite's
 * planner prefers walking the table in `_row` order (the list's order, no sort) to the indexes,
 * which reads the whole table for a user with few records. The row ids of the IN list come out
 * sorted, so the list still needs no sort and reads only the rows in scope
 * (test/integration/db/scope-plan.test.ts checks both plans). PostgreSQL combines the branches'
 * indexes itself (BitmapOr) and keeps the OR, except for a list page (`page`), which takes the
 * IN form on both: each branch stops after the rows the page can need (BranchPage).
 */
export function scopeCondition(
  eb: AnyBuilder,
  scope: ResolvedScope,
  options: ScopeSqlOptions,
  nested = false,
  page?: BranchPage,
): Expression<SqlBool> {
  if (scope.kind === 'any' && !nested && (options.dialect === 'sqlite' || page !== undefined)) {
    const [first, ...rest] = scope.of.map((branch, i) => {
      const rows = branchRows(eb, branch, options)
      return page === undefined
        ? rows.select(ROW_COLUMN)
        : eb.selectFrom(page(rows).select(ROW_COLUMN).as(`rama${i}`)).select(ROW_COLUMN)
    })
    if (first === undefined) return sql<SqlBool>`1 = 0`
    return eb(
      ROW_COLUMN,
      'in',
      rest.reduce((union, branch) => union.unionAll(branch), first),
    )
  }
  if (scope.kind !== 'in') {
    const parts = scope.of.map((s) => scopeCondition(eb, s, options, nested))
    return scope.kind === 'any' ? eb.or(parts) : eb.and(parts)
  }
  const values = (options.converted === true ? scope.values : leafParameters(scope, options.dialect)) as never[]
  if (values.length === 0) return sql<SqlBool>`1 = 0`
  return values.length === 1 ? eb(scope.column, '=', values[0]) : eb(scope.column, 'in', values)
}

/**
 * The ids of one page of an or-ed scope's records in creation order, with no filter: each
 * branch's live ids straight from its index (in `_row` order), merged by a UNION that stops at
 * the page's end, then the page of them. A list then reads the page's 100 rows and no other:
 * an OFFSET over whole rows read every skipped row, and an agente's rows lie far
 * apart in the table (at 1M denuncias page 100 cost 40 ms against 1 ms for superadmin's adjacent
 * rows). On SQLite the plan is a MERGE (UNION) of the two index searches with no sort.
 */
export function scopePageIds(
  eb: AnyBuilder,
  scope: ResolvedScope & { kind: 'any' },
  options: ScopeSqlOptions,
  page: { readonly limit: number; readonly offset: number },
) {
  const [first, ...rest] = scope.of.map((branch) => branchRows(eb, branch, options).select(ROW_COLUMN))
  if (first === undefined) return undefined
  // UNION, not UNION ALL: a record in two branches takes one place in the order.
  return rest
    .reduce((all, branch) => all.union(branch), first)
    .orderBy(ROW_COLUMN)
    .limit(page.limit)
    .offset(page.offset)
}

type Leaf = ResolvedScope & { kind: 'in' }

/** A leaf's values as its column stores them. */
const leafParameters = (leaf: Leaf, dialect: Dialect): unknown[] =>
  leaf.values.map((v) => VALUE_CONVERSIONS[dialect][leaf.storage].toDb(v))

/** The scope's leaves, depth first: the order of scopeParameters and scopePlaceholders. */
function leavesOf(scope: ResolvedScope): Leaf[] {
  return scope.kind === 'in' ? [scope] : scope.of.flatMap(leavesOf)
}

/**
 * What a scope's SQL depends on besides the dialect and the table: its and/or structure, each
 * leaf's column and how many values it holds (none, one `=`, several `IN`). Never the values:
 * two agentes share one prepared statement and each binds their own.
 */
export function scopeShape(scope: ResolvedScope): string {
  if (scope.kind === 'in') return `${scope.column}:${scope.storage}*${scope.values.length}`
  return `${scope.kind}(${scope.of.map(scopeShape).join(',')})`
}

/** The scope's values in leaf order, each converted for its column: what a prepared statement binds. */
export function scopeParameters(scope: ResolvedScope, dialect: Dialect): unknown[] {
  return leavesOf(scope).flatMap((leaf) => leafParameters(leaf, dialect))
}

/**
 * The scope with its n-th value (in scopeParameters' order) replaced by `placeholder(n)`: to
 * build a prepared statement with `converted: true`, the placeholders never converted.
 */
export function scopePlaceholders(scope: ResolvedScope, placeholder: (n: number) => string): ResolvedScope {
  let n = 0
  const replace = (s: ResolvedScope): ResolvedScope =>
    s.kind === 'in' ? { ...s, values: s.values.map(() => placeholder(n++)) } : { kind: s.kind, of: s.of.map(replace) }
  return replace(scope)
}
