// What a field type is: everything the service does differently for it, in one entry (STYLE 5, 10).
// Each type is one file of this folder; field-types.ts is the registry the compiler checks.
import type { FieldDef } from '../../config/types.js'
import type { FieldSpec } from '../types.js'
import type { FilterOperator, FilterParser, JsonSchema, StorageKind } from './vocabulary.js'

export {
  COLUMN_TYPES,
  EQUALITY_OPERATORS,
  ENCRYPTED_OPERATORS,
  FILTER_OPERATORS,
  INVALID,
  NO_OPERATORS,
  ORDERED_OPERATORS,
  type Dialect,
  type FilterOperator,
  type FilterParser,
  type JsonSchema,
  type StorageKind,
} from './vocabulary.js'

export interface SchemaContext {
  readonly roles: readonly string[]
  /** Module name -> id prefix: a `ref` field's schema states its target's id pattern. */
  readonly prefixes?: ReadonlyMap<string, string>
}

export interface FieldTypeDef {
  /** How values are stored: the column per dialect (COLUMN_TYPES) and the value conversions of db/dialects. */
  readonly storage: StorageKind
  /** Spanish name used in error messages. */
  readonly label: string
  /** The JSON Schema of one value (request bodies, records, OpenAPI). */
  readonly valueSchema: (field: FieldDef, context: SchemaContext) => JsonSchema
  /** Converts a query-string value (INVALID when it is not one); null when the type cannot be filtered. */
  readonly parseFilter: FilterParser | null
  /**
   * The filter operators the type allows (issue #16), read by the list parser, the SQL and the
   * OpenAPI document alike; empty exactly when `parseFilter` is null. Encrypted fields keep only
   * those of ENCRYPTED_OPERATORS.
   */
  readonly operators: readonly FilterOperator[]
  readonly sortable: boolean
  /**
   * Values are text: a required one cannot be empty, and an encrypted one decrypts to the text
   * itself (other types decrypt from JSON).
   */
  readonly textual: boolean
  /** Accepted on writes, never returned (password hashes). */
  readonly writeOnly: boolean
  /** What a `default: $now` stores, for the types that accept it. */
  readonly now?: 'date' | 'datetime'
  /**
   * A CSV cell or a `--field name=value` text -> the JSON value the API would receive (as text if it does not
   * convert).
   */
  readonly cell: (text: string) => unknown
  /** An example value the field accepts, for the OpenAPI document; undefined when none can be derived. */
  readonly example: (field: FieldSpec) => unknown
  /** The field's `examples` of modules.yaml (text) are valid examples of this type. */
  readonly textExamples: boolean
}
