// The metadata fields every record carries (API reference 2.3), and what lists may do with them (D11).
import { isDate, isDateTime } from './formats.js'
import { INVALID, type FilterOperator, type FilterParser, type StorageKind } from './field-types.js'

export const META = {
  id: '_id',
  created: '_created',
  createdBy: '_created_by',
  modified: '_modified',
  modifiedBy: '_modified_by',
  version: '_version',
  hash: '_hash',
  deleted: '_deleted',
  /**
   * A random value per record, inside what `_hash` covers (D17, F4): without it, a caller who
   * cannot read a field could confirm a guess of it by hashing. Shown only to a reader of every
   * field (records/field-rules.ts); records written before it have none until their next write.
   */
  salt: '_sal',
} as const

/**
 * Added to a record read whose stored encrypted values fail their check:
 * the affected fields read as null and these two say so; the rest of the record reads as usual.
 */
export const INTEGRITY = { marker: '_integridad', fields: '_integridad_campos', failed: 'error' } as const

/** Internal insertion order: lists default to creation order (D11). */
export const ROW_COLUMN = '_row'

export const META_COLUMNS: readonly {
  readonly name: string
  readonly storage: StorageKind
  readonly nullable: boolean
}[] = [
  { name: META.id, storage: 'text', nullable: false },
  { name: META.created, storage: 'text', nullable: false },
  { name: META.createdBy, storage: 'text', nullable: false },
  { name: META.modified, storage: 'text', nullable: false },
  { name: META.modifiedBy, storage: 'text', nullable: false },
  { name: META.version, storage: 'integer', nullable: false },
  { name: META.hash, storage: 'text', nullable: false },
  { name: META.deleted, storage: 'text', nullable: true },
  { name: META.salt, storage: 'text', nullable: true },
]

/** A metadata field a list may filter on: its operators and how its query-string value converts. */
export interface MetaFilter {
  readonly name: string
  readonly label: string
  readonly operators: readonly FilterOperator[]
  readonly parse: FilterParser
  readonly description: string
}

/** A time of the metadata: `AAAA-MM-DD HH:MM:SS`, or a date alone meaning its first second. */
const parseStamp: FilterParser = (raw) => (isDateTime(raw) ? raw : isDate(raw) ? `${raw} 00:00:00` : INVALID)
const STAMP = { label: 'fecha y hora AAAA-MM-DD HH:MM:SS o fecha AAAA-MM-DD', parse: parseStamp }
const WHO = { label: 'id de usuario', operators: ['eq', 'ne', 'in'] as const, parse: (raw: string) => raw }
const TIME_OPERATORS: readonly FilterOperator[] = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte']

/** Metadata a client may filter on: who created or changed a record (D11), and when. */
export const FILTERABLE_META: readonly MetaFilter[] = [
  { name: META.created, ...STAMP, operators: TIME_OPERATORS, description: 'cuándo se creó' },
  { name: META.modified, ...STAMP, operators: TIME_OPERATORS, description: 'cuándo se modificó por última vez' },
  { name: META.createdBy, ...WHO, description: 'el id del usuario que lo creó' },
  { name: META.modifiedBy, ...WHO, description: 'el id del usuario que lo modificó por última vez' },
]
/** Metadata a client may sort on. */
export const SORTABLE_META: readonly string[] = [META.created, META.modified, META.version]

/** Keys starting with `_` in a request body are metadata: ignored, never applied (D7). */
export const isMetadataKey = (key: string): boolean => key.startsWith('_')

const BLIND_INDEX_PREFIX = '_bidx_'
export const blindIndexColumnOf = (field: string): string => `${BLIND_INDEX_PREFIX}${field}`
export const isBlindIndexColumn = (column: string): boolean => column.startsWith(BLIND_INDEX_PREFIX)

/** The masked value of an encrypted field for callers without `{module}.descifrar` (D15). */
export const MASK = '***'
