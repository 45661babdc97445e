// A resolved record scope as a WHERE condition, the same on SQLite and PostgreSQL (issue #14):
// equality and IN on indexed columns, or-ed and and-ed; never a filter after the query.
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely'
import type { ResolvedScope } from '../records/scope.js'
import type { Dialect } from '../compile/field-types.js'
import { VALUE_CONVERSIONS } from './dialects/values.js'

type AnyBuilder = ExpressionBuilder<any, any>

export function scopeCondition(eb: AnyBuilder, scope: ResolvedScope, dialect: Dialect): Expression<SqlBool> {
  if (scope.kind !== 'in') {
    const parts = scope.of.map((s) => scopeCondition(eb, s, dialect))
    return scope.kind === 'any' ? eb.or(parts) : eb.and(parts)
  }
  const toDb = VALUE_CONVERSIONS[dialect][scope.storage].toDb
  const values = scope.values.map((v) => toDb(v) as never)
  if (values.length === 0) return sql<SqlBool>`1 = 0`
  return values.length === 1 ? eb(scope.column, '=', values[0]) : eb(scope.column, 'in', values)
}
