// A plain list page (no filter, no sort, no text search) as a prepared statement:
// the list every client opens first. Building an agente's or-ed scope query through Kysely and
// compiling it cost more per request than superadmin's whole page; compiled once per module and
// per scope shape, a request only binds its scope's values, its limit and its offset.
import type { CompiledQuery } from 'kysely'
import type { Dialect } from '../../compile/field-types.js'
import type { ModuleSpec } from '../../compile/types.js'
import type { ResolvedScope } from '../../records/scope.js'
import type { Db, Row } from '../database.js'
import { prepare, type Prepared } from '../prepared.js'
import { plainPageQuery } from './query.js'
import { scopeParameters, scopePlaceholders, scopeShape } from './scope-sql.js'

/**
 * Shapes kept per module: they come from the roles of modules.yaml (a scope's structure and how
 * many values each of its matches holds), so a handful; the bound keeps an unforeseen source of
 * shapes (a match on a user's list of values) from growing the cache without end.
 */
export const PLAIN_PAGE_SHAPES = 32

/** No scope: the unscoped page's shape. */
const UNSCOPED = '-'

type Statements = Map<ModuleSpec, Map<string, Prepared<string>>>
/** Per adapter (the dialect's SQL), as preparedQuery keys its statements. */
const byAdapter = new WeakMap<object, Statements>()

function statementsOf(db: Db): Statements {
  const adapter = db.getExecutor().adapter
  let statements = byAdapter.get(adapter)
  if (statements === undefined) byAdapter.set(adapter, (statements = new Map()))
  return statements
}

/**
 * The plain page of `spec`'s live records in `scope` (undefined: all), `limit` rows from `offset`
 * in creation order: the SQL of plainPageQuery, prepared on first use of the scope's shape and then
 * only re-bound. The scope's values are converted for their columns here and bound, never part
 * of the cached SQL.
 */
export function plainPage(
  db: Db,
  spec: ModuleSpec,
  scope: ResolvedScope | undefined,
  page: {
    readonly dialect: Dialect
    readonly limit: number
    readonly offset: number
    /** The columns read (pageColumns); undefined: all. */
    readonly columns?: readonly string[] | undefined
    /** No record of the module is blocked (D41) at the generation the list read: no filter for them. */
    readonly noneBlocked?: boolean
  },
): CompiledQuery<Row> {
  const { dialect, columns, noneBlocked = false } = page
  const key = `${scope === undefined ? UNSCOPED : scopeShape(scope)}${noneBlocked ? '|all-unblocked' : ''}${columns === undefined ? '' : `|${columns.join(',')}`}`
  const statements = statementsOf(db)
  let shapes = statements.get(spec)
  if (shapes === undefined) statements.set(spec, (shapes = new Map()))
  let prepared = shapes.get(key)
  if (prepared === undefined) {
    prepared = prepare<string>((param) =>
      plainPageQuery(db, spec, scope === undefined ? undefined : scopePlaceholders(scope, (n) => param(`v${n}`)), {
        dialect,
        converted: true,
        limit: param('limit') as unknown as number,
        offset: param('offset') as unknown as number,
        columns,
        noneBlocked,
      }),
    )
    // The oldest shape makes room: Map keeps insertion order.
    if (shapes.size >= PLAIN_PAGE_SHAPES) shapes.delete(shapes.keys().next().value as string)
    shapes.set(key, prepared)
  }
  const values: Record<string, unknown> = { limit: page.limit, offset: page.offset }
  if (scope !== undefined) scopeParameters(scope, dialect).forEach((value, n) => (values[`v${n}`] = value))
  return prepared.bind(values)
}

/** The scope shapes `spec` has a prepared plain page for on `db`'s dialect (tests, diagnostics). */
export function plainPageShapes(db: Db, spec: ModuleSpec): readonly string[] {
  return [...(statementsOf(db).get(spec)?.keys() ?? [])]
}
