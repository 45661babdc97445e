// Pieces several field types share: their schemas, filter parsers, CSV cells and examples.
import type { FieldDef } from '../../config/types.js'
import type { FieldSpec } from '../types.js'
import { INVALID, type DemoContext, type FieldDeclaration, type FilterParser, type JsonSchema } from './field-type.js'

/** What most types may declare; each type file states how it differs. */
export const BASE_DECLARATION: FieldDeclaration = {
  encryptable: true,
  comparable: true,
  bounds: 'none',
  enumerable: false,
  acceptsNow: false,
  defaultFits: (value) => typeof value === 'string',
  searchable: false,
  writeOnly: false,
  references: false,
}

export const stringSchema = (field: FieldDef, defaultMax: number): JsonSchema => ({
  type: 'string',
  maxLength: field.maxLength ?? defaultMax,
  ...(field.minLength === undefined ? {} : { minLength: field.minLength }),
  ...(field.pattern === undefined ? {} : { pattern: field.pattern }),
  ...(field.format === undefined ? {} : { format: field.format }),
  ...(field.enum === undefined ? {} : { enum: field.enum }),
})

export const numberSchema = (type: 'integer' | 'number', field: FieldDef): JsonSchema => ({
  type,
  ...(field.minimum === undefined ? {} : { minimum: field.minimum }),
  ...(field.maximum === undefined ? {} : { maximum: field.maximum }),
  ...(type === 'integer'
    ? { minimum: field.minimum ?? Number.MIN_SAFE_INTEGER, maximum: field.maximum ?? Number.MAX_SAFE_INTEGER }
    : {}),
})

export const when =
  (check: (raw: string) => boolean): FilterParser =>
  (raw) =>
    check(raw) ? raw : INVALID
export const anyString: FilterParser = (raw) => raw

const NUMBER = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/
export const textCell = (text: string): unknown => text
export const numberCell = (text: string): unknown => (NUMBER.test(text.trim()) ? Number(text) : text)
export const jsonCell = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

export function fitLength(text: string, field: FieldSpec): string {
  const min = field.def.minLength ?? 0
  const max = field.def.maxLength ?? Number.MAX_SAFE_INTEGER
  return text.padEnd(min, 'x').slice(0, max)
}

export function clamp(value: number, field: FieldSpec): number {
  const min = field.def.minimum
  const max = field.def.maximum
  return Math.min(max ?? value, Math.max(min ?? value, value))
}

export function stringExample(field: FieldSpec): string | undefined {
  if (field.def.format === 'email') return 'persona@example.org'
  if (field.def.format === 'uri') return 'https://example.org/documento.pdf'
  if (field.def.pattern !== undefined) return undefined // no value can be guessed from a pattern
  return fitLength(`Ejemplo de ${field.name.replaceAll('_', ' ')}`, field)
}

/** A demo number within the field's bounds (0 to 500 without them). */
export function demoNumber(field: FieldSpec, context: DemoContext, decimals: 0 | 2): number {
  const min = field.def.minimum ?? 0
  const max = field.def.maximum ?? Math.max(min + 500, 500)
  const value = min + context.random.next() * (max - min)
  return decimals === 0 ? Math.round(value) : Math.round(value * 100) / 100
}

/** The fixed date of every example: the document is the same on every build. */
export const EXAMPLE_DATE = '2026-01-15'
