// What one reader may filter, sort and search a module's list by: the one rule of it. The store
// refuses a list query by it (db/records/list-access.ts) and GET /me/modulos offers by it
// (module-view.ts, D46), so the console is offered exactly what the API accepts. Nobody filters,
// sorts or searches by a field they cannot read (D27), and only a reader who decrypts compares an
// encrypted field's values (D16): either would reveal the value through the answers. Pure.
import type { FilterOperator } from '../compile/field-types.js'
import type { FieldSpec, ModuleSpec } from '../compile/types.js'
import { forbidden, missingPermission } from '../errors.js'
import type { ListQuery } from './list-query.js'

/** The reader as the rule sees them: the fields they cannot read, whether they hold `{module}.descifrar`. */
export interface QueryReader {
  readonly role: string | null
  readonly hidden: ReadonlySet<string>
  readonly reveal: boolean
}

/** Why a reader may not use a field in a query: 403 naming `{module}.descifrar`, or naming the field. */
export type QueryRefusal = 'descifrar' | 'cannot_read'

const NONE: ReadonlySet<string> = new Set()

/**
 * The reader of `role` in `spec`; `reveal`: the role holds `{module}.descifrar`. A null role (the
 * command line's operator, the service itself) is refused nothing.
 */
export const queryReader = (spec: ModuleSpec, role: string | null, reveal: boolean): QueryReader =>
  role === null
    ? { role, hidden: NONE, reveal: true }
    : { role, hidden: spec.access.get(role)?.cannotRead ?? NONE, reveal }

/**
 * Why `reader` may not filter `field` with `op`, or undefined. Emptiness (`null`) is the stored
 * column's and tells nothing of the value; every other operator on an encrypted field compares
 * through its blind index. Whether the field's type has the operator at all is the parser's 400.
 */
export function filterRefusal(field: FieldSpec, op: FilterOperator, reader: QueryReader): QueryRefusal | undefined {
  if (field.encrypted && op !== 'null' && !reader.reveal) return 'descifrar'
  return reader.hidden.has(field.name) ? 'cannot_read' : undefined
}

/** Why `reader` may not sort by `field`, or undefined (whether its type sorts is the parser's 400). */
export const sortRefusal = (field: FieldSpec, reader: QueryReader): QueryRefusal | undefined =>
  reader.hidden.has(field.name) ? 'cannot_read' : undefined

/** The operators `reader` may filter `field` with: what GET /me/modulos offers. */
export const filterOperatorsFor = (field: FieldSpec, reader: QueryReader): readonly FilterOperator[] =>
  field.operators.filter((op) => filterRefusal(field, op, reader) === undefined)

/** `reader` may sort by `field`. */
export const sortableFor = (field: FieldSpec, reader: QueryReader): boolean =>
  field.sortable && sortRefusal(field, reader) === undefined

/** `?q=` looks in `field` for `reader`: a word in a field they cannot read finds nothing. */
export const searchableFor = (field: FieldSpec, reader: QueryReader): boolean =>
  field.def.searchable && !reader.hidden.has(field.name)

/**
 * 403 naming `{module}.descifrar` when a filter compares an encrypted field's values without it;
 * otherwise 403 naming every field filtered or sorted by that the reader cannot read.
 */
export function checkQueryAccess(
  spec: ModuleSpec,
  query: Pick<ListQuery, 'filters' | 'sort'>,
  reader: QueryReader,
): void {
  const unread = new Set<string>()
  let decrypts = false
  for (const filter of query.filters) {
    const field = spec.fieldsByName.get(filter.name)
    const refusal = field === undefined ? undefined : filterRefusal(field, filter.op, reader)
    if (refusal === 'descifrar') decrypts = true
    else if (refusal === 'cannot_read') unread.add(filter.name)
  }
  for (const key of query.sort) {
    const field = spec.fields.find((f) => f.column === key.column)
    if (field !== undefined && sortRefusal(field, reader) !== undefined) unread.add(field.name)
  }
  if (decrypts) throw missingPermission(spec.permissions.descifrar, reader.role ?? '')
  if (unread.size > 0)
    throw forbidden(
      spec.fields
        .filter((f) => unread.has(f.name))
        .map((f) => ({
          field: f.name,
          message: `El rol '${reader.role}' no puede leer el campo '${f.name}' (cannot_read)`,
        })),
    )
}
