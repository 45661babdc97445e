// A list filter (`campo[op]=valor`) as a WHERE condition, the same SQL on SQLite and
// PostgreSQL: plain comparisons on the column, so an indexed field uses its index; an encrypted
// field compares its blind index (D16).
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely'
import type { Dialect } from '../../compile/field-types.js'
import type { ModuleSpec } from '../../compile/types.js'
import type { Filter } from '../../records/list-query.js'
import { VALUE_CONVERSIONS } from '../dialects/values.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- module tables are declared at run time
type AnyBuilder = ExpressionBuilder<any, any>

const COMPARISONS = { eq: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const

export function filterCondition(
  eb: AnyBuilder,
  spec: ModuleSpec,
  filter: Filter,
  dialect: Dialect,
  blindIndexes: (value: unknown) => readonly string[],
): Expression<SqlBool> {
  const { column, op } = filter
  if (op === 'null') return eb(column, filter.value === true ? 'is' : 'is not', null)
  const values = op === 'in' ? (filter.value as readonly unknown[]) : [filter.value]
  const field = spec.fieldsByName.get(filter.name)
  // Metadata are text; a field's value goes through its column's conversion (booleans, JSON).
  const toDb = (value: unknown): never =>
    (field === undefined || filter.blind ? value : VALUE_CONVERSIONS[dialect][field.storage].toDb(value)) as never
  const stored = filter.blind ? values.flatMap((v) => blindIndexes(v)) : values.map(toDb)
  if (op === 'in' || filter.blind) {
    if (stored.length === 0) return sql<SqlBool>`1 = 0`
    return stored.length === 1 ? eb(column, '=', stored[0] as never) : eb(column, 'in', stored as never[])
  }
  // `ne` keeps the records without a value: they are not equal to it either.
  if (op === 'ne') return eb.or([eb(column, '<>', stored[0] as never), eb(column, 'is', null)])
  return eb(column, COMPARISONS[op], stored[0] as never)
}
