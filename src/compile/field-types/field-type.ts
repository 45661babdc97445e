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

/**
 * What modules.yaml may say about a field of the type: read by config/ (validate and rules) as
 * `FIELD_DECLARATIONS`, the one part of a type file that config/ imports (docs/development.md).
 */
export interface FieldDeclaration {
  /** May be `encrypted: true` (D15). */
  readonly encryptable: boolean
  /** Values compare: may be `unique`, `index` or part of a composite index, or a scope's field. */
  readonly comparable: boolean
  /** Which bounds apply: `minimum`/`maximum`, or `min_length`/`max_length`/`pattern`/`format`. */
  readonly bounds: 'number' | 'text' | 'none'
  /** May list its values in `enum` (and so be a state field). */
  readonly enumerable: boolean
  /** May say `default: $now`. */
  readonly acceptsNow: boolean
  /** A literal `default:` of this type. */
  readonly defaultFits: (value: unknown) => boolean
  /** May be `searchable: true`: words of its text found by `?q=`. */
  readonly searchable: boolean
  /**
   * Accepted on writes, never returned (password hashes): no default, no profile, no user
   * attribute of a scope.
   */
  readonly writeOnly: boolean
  /**
   * Holds the id of a record of the module named by `module:`: takes `module`
   * and `on_delete`, is always indexed, can be expanded and is checked on every write.
   */
  readonly references: boolean
  /**
   * D43: written only by uploads to its own route, never by a record's body (a `file` field):
   * takes `max_size` and `types`.
   */
  readonly uploaded?: boolean
}

/** What `records demo` gives a type to invent a value with (its randomness and clock are the command's). */
export interface DemoContext {
  /** The value's number within its field, from 1: unique values use it. */
  readonly n: number
  readonly random: {
    /** In [0, 1). */
    next(): number
    /** An integer in [min, max]. */
    int(min: number, max: number): number
    pick<T>(values: readonly T[]): T
    chance(probability: number): boolean
  }
  /** A moment of the last three years in the service's time zone (D9), as a stored datetime. */
  pastStamp(): string
  readonly roles: readonly string[]
  /** Live ids of a module, for references. */
  idsOf(module: string): readonly string[]
  /** A password no one knows until the command prints it. */
  password(): string
}

/** What a CSV file says about its cells as a whole. */
export interface CellContext {
  /** A `;`-separated file, as a spreadsheet in a Spanish locale saves it: decimals may say `12,5`. */
  readonly decimalComma: boolean
}

export interface FieldTypeDef {
  /** What modules.yaml may declare for it (config/field-declarations.ts lists these). */
  readonly declaration: FieldDeclaration
  /** How values are stored: the column per dialect (COLUMN_TYPES) and the value conversions of db/dialects. */
  readonly storage: StorageKind
  /** Spanish name used in error messages. */
  readonly label: string
  /** The JSON Schema of one value (request bodies, records, OpenAPI). */
  readonly valueSchema: (field: FieldDef, context: SchemaContext) => JsonSchema
  /** Converts a query-string value (INVALID when it is not one); null when the type cannot be filtered. */
  readonly parseFilter: FilterParser | null
  /**
   * The filter operators the type allows, read by the list parser, the SQL and the
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
  /** What a `default: $now` stores, for the types that accept it. */
  readonly now?: 'date' | 'datetime'
  /**
   * A CSV cell or a `--field name=value` text -> the JSON value the API would receive (as text if it does not
   * convert).
   */
  readonly cell: (text: string, context?: CellContext) => unknown
  /** An example value the field accepts, for the OpenAPI document; undefined when none can be derived. */
  readonly example: (field: FieldSpec) => unknown
  /**
   * A plausible value for `records demo` when neither the data file nor the field's `enum` gives
   * one; undefined leaves an optional field out.
   */
  readonly demo: (field: FieldSpec, context: DemoContext) => unknown
  /** The field's `examples` of modules.yaml (text) are valid examples of this type. */
  readonly textExamples: boolean
}
