// What each field type of modules.yaml accepts in its declaration: the vocabulary of `type:`
// (FieldType is its keys) and the rules the JSON Schema cannot say per type. Everything the
// engine does with a type (schema, column, filters, CSV, examples) is its entry in
// compile/field-types/; a unit test keeps the two and schema/modules.schema.json in step.

export interface FieldDeclaration {
  /** May be `encrypted: true` (D15). */
  readonly encryptable: boolean
  /** Values compare: may be `unique`, `index` or part of a composite index. */
  readonly comparable: boolean
  /** Which bounds apply: `minimum`/`maximum`, or `min_length`/`max_length`/`pattern`/`format`. */
  readonly bounds: 'number' | 'text' | 'none'
  /** May list its values in `enum` (and so be a state field). */
  readonly enumerable: boolean
  /** May say `default: $now`. */
  readonly acceptsNow: boolean
  /** A literal `default:` of this type. */
  readonly defaultFits: (value: unknown) => boolean
  /** May be `searchable: true`: words of its text found by `?q=` (issue #16). */
  readonly searchable: boolean
}

const isText = (value: unknown) => typeof value === 'string'
const text = {
  encryptable: true,
  comparable: true,
  bounds: 'none',
  enumerable: false,
  acceptsNow: false,
  defaultFits: isText,
  searchable: false,
} as const

export const FIELD_DECLARATIONS = {
  string: { ...text, bounds: 'text', enumerable: true, searchable: true },
  text: { ...text, bounds: 'text', searchable: true },
  integer: { ...text, bounds: 'number', defaultFits: (value: unknown) => Number.isInteger(value) },
  decimal: { ...text, bounds: 'number', defaultFits: (value: unknown) => typeof value === 'number' },
  boolean: { ...text, encryptable: false, defaultFits: (value: unknown) => typeof value === 'boolean' },
  date: { ...text, acceptsNow: true },
  datetime: { ...text, acceptsNow: true },
  time: text,
  array: { ...text, comparable: false, defaultFits: (value: unknown) => Array.isArray(value) },
  mixed: { ...text, comparable: false, defaultFits: () => true },
  password: { ...text, encryptable: false, comparable: false, bounds: 'text', defaultFits: () => false },
  role: { ...text, encryptable: false },
  // The id of a live record of another module: looked up on every write, so never encrypted.
  ref: { ...text, encryptable: false },
} as const satisfies Readonly<Record<string, FieldDeclaration>>

export type FieldType = keyof typeof FIELD_DECLARATIONS
