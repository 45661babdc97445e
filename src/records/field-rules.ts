// Field rules of a role (issue #14): fields it cannot read (absent from answers), cannot write
// (403 naming the field) and values filled from the acting user on create. Pure.
import type { ListQuery } from './list-query.js'
import type { AccessSpec, ModuleSpec } from '../compile/types.js'
import { forbidden } from '../errors.js'
import { userAttribute, type ActingUser } from './acting-user.js'

type Values = Record<string, unknown>

const accessOf = (spec: ModuleSpec, user: ActingUser | null): AccessSpec | undefined =>
  user === null ? undefined : spec.access.get(user.role)

/** Fields absent from every answer to `user`; undefined when none. */
export function hiddenFields(spec: ModuleSpec, user: ActingUser | null): ReadonlySet<string> | undefined {
  const hidden = accessOf(spec, user)?.cannotRead
  return hidden === undefined || hidden.size === 0 ? undefined : hidden
}

/** A record without the fields its reader may not read (not masked: absent). */
export function withoutHidden<T extends Readonly<Values>>(record: T, hidden: ReadonlySet<string> | undefined): T {
  if (hidden === undefined) return record
  const out: Values = {}
  for (const key of Object.keys(record)) if (!hidden.has(key)) out[key] = record[key]
  return out as T
}

/** Filtering or sorting on a field one cannot read would reveal it through the answers: 403. */
export function checkQueryReadable(spec: ModuleSpec, user: ActingUser | null, query: ListQuery): void {
  const hidden = hiddenFields(spec, user)
  if (hidden === undefined) return
  const named = spec.fields.filter(
    (f) =>
      hidden.has(f.name) &&
      (query.sort.some((key) => key.column === f.column) ||
        query.filters.some((q) => q.column === f.column || q.column === f.blindIndexColumn)),
  )
  if (named.length > 0)
    throw forbidden(
      named.map((f) => ({
        field: f.name,
        message: `El rol '${user?.role}' no puede leer el campo '${f.name}' (cannot_read)`,
      })),
    )
}

/** 403 naming every field of `values` the role may not write. */
export function checkWritable(spec: ModuleSpec, user: ActingUser | null, values: Readonly<Values>): void {
  const denied = accessOf(spec, user)?.cannotWrite
  if (denied === undefined || denied.size === 0) return
  const named = Object.keys(values).filter((k) => denied.has(k))
  if (named.length > 0)
    throw forbidden(
      named.map((field) => ({
        field,
        message: `El rol '${user?.role}' no puede escribir el campo '${field}' (cannot_write)`,
      })),
    )
}

/** The role's `defaults:` filled where the request sent nothing (an agente's denuncia assigned to them). */
export function withUserDefaults(spec: ModuleSpec, user: ActingUser | null, values: Readonly<Values>): Values {
  const access = accessOf(spec, user)
  if (access === undefined || access.defaults.length === 0 || user === null) return { ...values }
  const out: Values = { ...values }
  for (const { field, value } of access.defaults) {
    if (out[field] !== undefined && out[field] !== null) continue
    const filled = 'user' in value ? userAttribute(user, value.user) : value.literal
    if (filled !== null && filled !== undefined) out[field] = filled
  }
  return out
}
