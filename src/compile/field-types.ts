// The field-type registry: each type owns its JSON Schema, its storage, how a
// query-string value converts to it, and whether it can be filtered or sorted.
import type { FieldDef, FieldType } from '../config/types.js'
import { isDate, isDateTime, isTime, type FormatName } from './formats.js'

export type Dialect = 'sqlite' | 'postgres'
export type StorageKind = 'text' | 'integer' | 'real' | 'boolean' | 'json'
export type JsonSchema = Readonly<Record<string, unknown>>

/** SQL column type per storage kind and dialect; a missing entry does not compile. */
export const COLUMN_TYPES: Readonly<Record<StorageKind, Readonly<Record<Dialect, string>>>> = {
  text: { sqlite: 'text', postgres: 'text' },
  integer: { sqlite: 'integer', postgres: 'bigint' },
  real: { sqlite: 'real', postgres: 'numeric' },
  boolean: { sqlite: 'integer', postgres: 'boolean' },
  json: { sqlite: 'text', postgres: 'jsonb' },
}

export const INVALID = Symbol('invalid filter value')
export type FilterParser = (raw: string) => unknown

export interface SchemaContext {
  readonly roles: readonly string[]
}

export interface FieldTypeEntry {
  readonly storage: StorageKind
  /** Spanish name used in error messages. */
  readonly label: string
  readonly valueSchema: (field: FieldDef, context: SchemaContext) => JsonSchema
  /** Converts a query-string value; null when the type cannot be filtered. */
  readonly parseFilter: FilterParser | null
  readonly sortable: boolean
}

const format = (name: FormatName) => ({ type: 'string', format: name })
const stringSchema = (field: FieldDef, defaultMax: number): JsonSchema => ({
  type: 'string',
  maxLength: field.maxLength ?? defaultMax,
  ...(field.minLength === undefined ? {} : { minLength: field.minLength }),
  ...(field.pattern === undefined ? {} : { pattern: field.pattern }),
  ...(field.format === undefined ? {} : { format: field.format }),
  ...(field.enum === undefined ? {} : { enum: field.enum }),
})
const numberSchema = (type: 'integer' | 'number', field: FieldDef): JsonSchema => ({
  type,
  ...(field.minimum === undefined ? {} : { minimum: field.minimum }),
  ...(field.maximum === undefined ? {} : { maximum: field.maximum }),
  ...(type === 'integer' ? { minimum: field.minimum ?? Number.MIN_SAFE_INTEGER, maximum: field.maximum ?? Number.MAX_SAFE_INTEGER } : {}),
})
const when = (check: (raw: string) => boolean): FilterParser => (raw) => (check(raw) ? raw : INVALID)
const anyString: FilterParser = (raw) => raw

export const FIELD_TYPES: Readonly<Record<FieldType, FieldTypeEntry>> = {
  string: { storage: 'text', label: 'texto', valueSchema: (f) => stringSchema(f, 1000), parseFilter: anyString, sortable: true },
  text: { storage: 'text', label: 'texto', valueSchema: (f) => stringSchema(f, 100_000), parseFilter: anyString, sortable: true },
  password: { storage: 'text', label: 'contraseña', valueSchema: (f) => stringSchema({ ...f, maxLength: f.maxLength ?? 72 }, 72), parseFilter: null, sortable: false },
  integer: {
    storage: 'integer', label: 'número entero', valueSchema: (f) => numberSchema('integer', f), sortable: true,
    parseFilter: (raw) => (/^-?\d{1,15}$/.test(raw) ? Number(raw) : INVALID),
  },
  decimal: {
    storage: 'real', label: 'número', valueSchema: (f) => numberSchema('number', f), sortable: true,
    parseFilter: (raw) => (/^-?\d{1,15}(\.\d{1,6})?$/.test(raw) ? Number(raw) : INVALID),
  },
  boolean: {
    storage: 'boolean', label: 'booleano (true o false)', valueSchema: () => ({ type: 'boolean' }), sortable: true,
    parseFilter: (raw) => (raw === 'true' ? true : raw === 'false' ? false : INVALID),
  },
  date: { storage: 'text', label: 'fecha AAAA-MM-DD', valueSchema: () => format('calendar-date'), parseFilter: when(isDate), sortable: true },
  datetime: { storage: 'text', label: 'fecha y hora AAAA-MM-DD HH:MM:SS', valueSchema: () => format('local-datetime'), parseFilter: when(isDateTime), sortable: true },
  time: { storage: 'text', label: 'hora HH:MM', valueSchema: () => format('hour-minute'), parseFilter: when(isTime), sortable: true },
  role: {
    storage: 'text', label: 'nombre de rol', valueSchema: (_f, context) => ({ type: 'string', enum: context.roles }), sortable: true,
    parseFilter: anyString,
  },
  array: { storage: 'json', label: 'lista', valueSchema: () => ({ type: 'array', maxItems: 1000 }), parseFilter: null, sortable: false },
  mixed: { storage: 'json', label: 'valor JSON', valueSchema: () => ({}), parseFilter: null, sortable: false },
}
