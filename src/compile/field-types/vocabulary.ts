// The words a field type is described in, which the compiled field (compile/types.ts FieldSpec)
// is described in too: storage kinds and their columns, JSON Schema, filter parsers and operators.
// Apart from field-type.ts, which names the compiled field, so that compile/types.ts imports no
// file that imports it back.

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

/**
 * The operators of a list filter, `campo[op]=valor`: equality, order, a list of
 * values, emptiness. Plain `campo=valor` is `eq` (D11).
 */
export const FILTER_OPERATORS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'null'] as const
export type FilterOperator = (typeof FILTER_OPERATORS)[number]
/** Every operator: types with an order (numbers, dates, times, text). */
export const ORDERED_OPERATORS: readonly FilterOperator[] = FILTER_OPERATORS
/** Types that cannot be filtered (lists, JSON, passwords). */
export const NO_OPERATORS: readonly FilterOperator[] = []
/** Booleans: no order, no list. */
export const EQUALITY_OPERATORS: readonly FilterOperator[] = ['eq', 'ne', 'null']
/**
 * What an encrypted field of any type allows: exact values through its blind index (D16) and
 * emptiness (a masked record shows null too); no order, no `ne`, which would compare ciphertexts.
 */
export const ENCRYPTED_OPERATORS: readonly FilterOperator[] = ['eq', 'in', 'null']
