// A list request's query string -> a checked ListQuery (D11, D16). Pure.
//
// Each parameter of a list has its own parser below, called from parseListQuery; every other
// name is a filter, `campo=valor` or `campo[op]=valor`. A new parameter is one more entry in
// LIST_PARAMETERS and one more line there.
import { validationFailed, type ErrorDetail } from '../errors.js'
import { FILTER_OPERATORS, INVALID, type FilterOperator, type FilterParser } from '../compile/field-types.js'
import { FILTERABLE_META, META, SORTABLE_META, type MetaFilter } from '../compile/metadata.js'
import type { FieldSpec, ModuleSpec } from '../compile/types.js'
import { MAX_TEXT_QUERY_LENGTH, MAX_TEXT_QUERY_WORDS, searchWords } from './text-query.js'

export interface ListLimits {
  readonly defaultLimit: number
  readonly maxLimit: number
  readonly maxFilters: number
}

/** How many values one `campo[in]=a,b,c` may list. */
export const MAX_IN_VALUES = 100

export interface Filter {
  /** The field or metadata name as the client wrote it (messages, field rules). */
  readonly name: string
  readonly column: string
  readonly op: FilterOperator
  /**
   * eq..lte: one value of the field's type; in: a list of them; null: true (no value) or false
   * (a value).
   */
  readonly value: unknown
  /** Compare through the blind index (encrypted field): the store hashes the value(s). */
  readonly blind: boolean
}

export interface SortKey {
  readonly column: string
  readonly descending: boolean
}

export interface ListQuery {
  readonly limit: number
  readonly offset: number
  /** Every condition must hold (AND), several on one field too. */
  readonly filters: readonly Filter[]
  /** In order of priority; empty: creation order. The store always ends with creation order as tiebreak. */
  readonly sort: readonly SortKey[]
  /** `fields=`: the module fields to return (the metadata always come); undefined: all. */
  readonly fields: ReadonlySet<string> | undefined
  /** A filter compares an encrypted field's values: the caller needs `{module}.descifrar` (D16). */
  readonly filtersEncrypted: boolean
  /** `?q=`: the words a text search looks for; absent without `q`. */
  readonly text?: readonly string[]
  /** Order by the text search's relevance: `q` given and no `sort`. */
  readonly byRelevance?: boolean
}

/** The parameters of a list that are not filters (`expand`: records/expand-query.ts). */
export const LIST_PARAMETERS = ['limit', 'offset', 'sort', 'fields', 'q', 'expand'] as const

/** `?q=`: its words, checked against the module's searchable fields. */
function parseText(spec: ModuleSpec, raw: string | undefined, problems: ErrorDetail[]): string[] | undefined {
  if (raw === undefined) return undefined
  if (!spec.fields.some((f) => f.def.searchable)) {
    problems.push({ field: 'q', message: `El módulo '${spec.name}' no tiene campos de búsqueda de texto` })
    return undefined
  }
  const words = searchWords(raw)
  if (raw.length > MAX_TEXT_QUERY_LENGTH)
    problems.push({ field: 'q', message: `La búsqueda 'q' admite como máximo ${MAX_TEXT_QUERY_LENGTH} caracteres` })
  else if (words.length === 0)
    problems.push({ field: 'q', message: "La búsqueda 'q' debe contener al menos una palabra (letras o números)" })
  else if (words.length > MAX_TEXT_QUERY_WORDS)
    problems.push({ field: 'q', message: `La búsqueda 'q' admite como máximo ${MAX_TEXT_QUERY_WORDS} palabras` })
  else return words
  return undefined
}

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

/** `sort=a,-b`: several keys, each a sortable field or metadata, none twice. */
function parseSort(spec: ModuleSpec, raw: string | undefined, problems: ErrorDetail[]): SortKey[] {
  if (raw === undefined) return []
  const keys: SortKey[] = []
  const seen = new Set<string>()
  for (const item of raw.split(',')) {
    const descending = item.startsWith('-')
    const name = descending ? item.slice(1) : item
    const field = spec.fieldsByName.get(name)
    if (!((field !== undefined && field.sortable) || SORTABLE_META.includes(name)))
      problems.push({
        field: 'sort',
        message: `No se puede ordenar por '${name}': use un campo simple, sin cifrar, o ${SORTABLE_META.join(', ')}`,
      })
    else if (seen.has(name))
      problems.push({ field: 'sort', message: `El campo '${name}' aparece más de una vez en 'sort'` })
    else {
      seen.add(name)
      keys.push({ column: field?.column ?? name, descending })
    }
  }
  return keys
}

/** Fields a `fields=` may name: the ones a record shows, and the metadata (always shown anyway). */
const SHOWN_META: readonly string[] = Object.values(META).filter((name) => name !== META.deleted)

/** `fields=a,b`: the module fields to return; unknown names are a 400. */
export function parseFields(
  spec: ModuleSpec,
  raw: QueryValue,
  problems: ErrorDetail[],
): ReadonlySet<string> | undefined {
  const text = single('fields', raw, problems)
  if (text === undefined) return undefined
  const fields = new Set<string>()
  for (const name of text.split(',')) {
    const field = spec.fieldsByName.get(name)
    if (field !== undefined && !field.writeOnly) fields.add(name)
    else if (!SHOWN_META.includes(name))
      problems.push({ field: 'fields', message: `Campo desconocido '${name}' en 'fields'` })
  }
  return fields
}

/** `a\,b,c` -> ['a,b', 'c']: a comma splits unless escaped; `\\` is one backslash. */
export function splitList(raw: string): string[] {
  const values: string[] = []
  let current = ''
  for (let i = 0; i < raw.length; i++) {
    const char = raw[i] as string
    const next = raw[i + 1]
    if (char === '\\' && (next === ',' || next === '\\')) {
      current += next
      i++
    } else if (char === ',') {
      values.push(current)
      current = ''
    } else current += char
  }
  values.push(current)
  return values
}

/** What a filter needs to know of its target, a module field or a metadata field. */
interface FilterTarget {
  readonly name: string
  readonly column: string
  readonly label: string
  readonly operators: readonly FilterOperator[]
  readonly parse: FilterParser
  readonly allowed: readonly string[] | undefined
  readonly blindColumn: string | undefined
}

function fieldTarget(field: FieldSpec, parse: FilterParser): FilterTarget {
  return {
    name: field.name,
    column: field.column,
    label: field.encrypted ? `${field.label}, cifrado` : field.label,
    operators: field.operators,
    parse,
    allowed: field.def.enum ?? (field.valueSchema['enum'] as readonly string[] | undefined),
    blindColumn: field.encrypted ? (field.blindIndexColumn ?? field.column) : undefined,
  }
}

const metaTarget = (meta: MetaFilter): FilterTarget => ({
  ...meta,
  column: meta.name,
  allowed: undefined,
  blindColumn: undefined,
})

/** `campo` or `campo[op]` -> its parts; undefined when the key has another shape. */
function splitKey(key: string): { name: string; op: string | undefined } | undefined {
  const bracket = /^([^[\]]+)\[([^[\]]*)\]$/.exec(key)
  if (bracket !== null) return { name: bracket[1] as string, op: bracket[2] as string }
  return /[[\]]/.test(key) ? undefined : { name: key, op: undefined }
}

function parseFilter(key: string, raw: string, spec: ModuleSpec, problems: ErrorDetail[]): Filter | undefined {
  const parts = splitKey(key)
  const field = parts === undefined ? undefined : spec.fieldsByName.get(parts.name)
  const meta = parts === undefined ? undefined : FILTERABLE_META.find((m) => m.name === parts.name)
  if (parts === undefined || (field === undefined && meta === undefined)) {
    problems.push({ field: parts?.name ?? key, message: `Campo de filtro desconocido '${parts?.name ?? key}'` })
    return undefined
  }
  const { name } = parts
  if (field !== undefined && field.parseFilter === null) {
    problems.push({ field: name, message: `No se puede filtrar por '${name}' (tipo ${field.label})` })
    return undefined
  }
  const target =
    field !== undefined ? fieldTarget(field, field.parseFilter as FilterParser) : metaTarget(meta as MetaFilter)
  const op = parts.op ?? 'eq'
  if (!(FILTER_OPERATORS as readonly string[]).includes(op)) {
    problems.push({
      field: name,
      message: `Operador desconocido '${op}' en '${key}': use ${FILTER_OPERATORS.join(', ')}`,
    })
    return undefined
  }
  const operator = op as FilterOperator
  if (!target.operators.includes(operator)) {
    problems.push({
      field: name,
      message: `El operador '${op}' no se admite en '${name}' (${target.label}): admite ${target.operators.join(', ')}`,
    })
    return undefined
  }
  const invalid = (hint: string): undefined => {
    problems.push({ field: name, message: `Filtro '${key}' no válido: ${hint}` })
    return undefined
  }
  if (operator === 'null') {
    if (raw !== 'true' && raw !== 'false') return invalid('debe ser true o false')
    // Emptiness is the stored column's: a masked record shows null too, no blind index needed.
    return { name, column: target.column, op: operator, value: raw === 'true', blind: false }
  }
  const texts = operator === 'in' ? splitList(raw) : [raw]
  if (texts.length > MAX_IN_VALUES) return invalid(`como máximo ${MAX_IN_VALUES} valores`)
  const values: unknown[] = []
  for (const text of texts) {
    const value = target.parse(text)
    if (value === INVALID || (target.allowed !== undefined && !target.allowed.includes(text)))
      return invalid(
        target.allowed === undefined ? `debe ser ${target.label}` : `debe ser uno de: ${target.allowed.join(', ')}`,
      )
    values.push(value)
  }
  return {
    name,
    column: target.blindColumn ?? target.column,
    op: operator,
    value: operator === 'in' ? values : values[0],
    blind: target.blindColumn !== undefined,
  }
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
  const fields = parseFields(spec, query['fields'], problems)
  const text = parseText(spec, single('q', query['q'], problems), problems)
  const filters: Filter[] = []
  const keys = Object.keys(query).filter((k) => !(LIST_PARAMETERS as readonly string[]).includes(k))
  if (keys.length > limits.maxFilters)
    problems.push({ field: 'filtros', message: `Demasiados filtros: como máximo ${limits.maxFilters}` })
  for (const key of keys.slice(0, limits.maxFilters)) {
    const raw = single(key, query[key], problems)
    if (raw === undefined) continue
    const filter = parseFilter(key, raw, spec, problems)
    if (filter !== undefined) filters.push(filter)
  }
  if (problems.length > 0) throw validationFailed(problems)
  return {
    limit, // D11: above the maximum it is clamped
    offset,
    filters,
    sort,
    fields,
    filtersEncrypted: filters.some((f) => f.blind),
    ...(text === undefined ? {} : { text, byRelevance: sort.length === 0 }),
  }
}
