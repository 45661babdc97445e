// A list request's query string -> a checked ListQuery (D11, D16). Pure.
import { validationFailed, type ErrorDetail } from '../errors.js'
import { INVALID } from '../compile/field-types.js'
import { FILTERABLE_META, ROW_COLUMN, SORTABLE_META } from '../compile/metadata.js'
import type { FieldSpec, ModuleSpec } from '../compile/types.js'

export interface ListLimits {
  readonly defaultLimit: number
  readonly maxLimit: number
  readonly maxFilters: number
}

export interface Filter {
  readonly column: string
  readonly value: unknown
  /** Compare through the blind index (encrypted field): the store hashes `value`. */
  readonly blind: boolean
}

export interface ListQuery {
  readonly limit: number
  readonly offset: number
  readonly filters: readonly Filter[]
  readonly sort: { readonly column: string; readonly descending: boolean }
  /** A filter touches an encrypted field: the caller needs `{module}.descifrar` (D16). */
  readonly filtersEncrypted: boolean
}

/** Parameters of a list that are not filters (`expand`: records/expand-query.ts). */
export const LIST_PARAMETERS = ['limit', 'offset', 'sort', 'expand'] as const

export type QueryValue = string | readonly string[] | undefined

function single(name: string, value: QueryValue, problems: ErrorDetail[]): string | undefined {
  if (value === undefined || typeof value === 'string') return value
  problems.push({ field: name, message: `El parámetro '${name}' aparece más de una vez` })
  return undefined
}

function parseCount(name: string, raw: string | undefined, fallback: number, problems: ErrorDetail[]): number {
  if (raw === undefined) return fallback
  if (!/^\d+$/.test(raw)) {
    problems.push({ field: name, message: `El parámetro '${name}' debe ser un número entero no negativo` })
    return fallback
  }
  // Any count of digits is an integer: a huge limit clamps (D11), a huge offset is past the end.
  return Math.min(Number(raw), Number.MAX_SAFE_INTEGER)
}

function parseSort(spec: ModuleSpec, raw: string | undefined, problems: ErrorDetail[]): ListQuery['sort'] {
  if (raw === undefined) return { column: ROW_COLUMN, descending: false }
  const descending = raw.startsWith('-')
  const name = descending ? raw.slice(1) : raw
  const field = spec.fieldsByName.get(name)
  if ((field !== undefined && field.sortable) || SORTABLE_META.includes(name))
    return { column: field?.column ?? name, descending }
  problems.push({
    field: 'sort',
    message: `No se puede ordenar por '${name}': use un campo simple, sin cifrar, o ${SORTABLE_META.join(', ')}`,
  })
  return { column: ROW_COLUMN, descending: false }
}

function parseFilter(field: FieldSpec, raw: string, problems: ErrorDetail[]): Filter | undefined {
  if (field.parseFilter === null) {
    problems.push({ field: field.name, message: `No se puede filtrar por '${field.name}' (tipo ${field.label})` })
    return undefined
  }
  const value = field.parseFilter(raw)
  const allowed = field.def.enum ?? (field.valueSchema['enum'] as readonly string[] | undefined)
  if (value === INVALID || (allowed !== undefined && !allowed.includes(raw))) {
    const hint = allowed === undefined ? `debe ser ${field.label}` : `debe ser uno de: ${allowed.join(', ')}`
    problems.push({ field: field.name, message: `Filtro '${field.name}' no válido: ${hint}` })
    return undefined
  }
  return field.encrypted
    ? { column: field.blindIndexColumn ?? field.column, value, blind: true }
    : { column: field.column, value, blind: false }
}

/** limit and offset alone (D11), for lists that are not of a module (the audit trail, D25). */
export function parsePage(
  query: Readonly<Record<string, QueryValue>>,
  limits: ListLimits,
  problems: ErrorDetail[],
): { limit: number; offset: number } {
  const limit = parseCount('limit', single('limit', query['limit'], problems), limits.defaultLimit, problems)
  if (limit < 1) problems.push({ field: 'limit', message: "El parámetro 'limit' debe ser al menos 1" })
  const offset = parseCount('offset', single('offset', query['offset'], problems), 0, problems)
  return { limit: Math.min(limit, limits.maxLimit), offset }
}

/** Checks every parameter and reports all problems at once as one 400. */
export function parseListQuery(
  spec: ModuleSpec,
  query: Readonly<Record<string, QueryValue>>,
  limits: ListLimits,
): ListQuery {
  const problems: ErrorDetail[] = []
  const { limit, offset } = parsePage(query, limits, problems)
  const sort = parseSort(spec, single('sort', query['sort'], problems), problems)
  const filters: Filter[] = []
  const names = Object.keys(query).filter((k) => !(LIST_PARAMETERS as readonly string[]).includes(k))
  if (names.length > limits.maxFilters)
    problems.push({ field: 'filtros', message: `Demasiados filtros: como máximo ${limits.maxFilters}` })
  for (const name of names.slice(0, limits.maxFilters)) {
    const raw = single(name, query[name], problems)
    if (raw === undefined) continue
    const field = spec.fieldsByName.get(name)
    if (field !== undefined) {
      const filter = parseFilter(field, raw, problems)
      if (filter !== undefined) filters.push(filter)
    } else if (FILTERABLE_META.includes(name)) filters.push({ column: name, value: raw, blind: false })
    else problems.push({ field: name, message: `Campo de filtro desconocido '${name}'` })
  }
  if (problems.length > 0) throw validationFailed(problems)
  return {
    limit, // D11: above the maximum it is clamped
    offset,
    filters,
    sort,
    filtersEncrypted: filters.some((f) => f.blind),
  }
}
