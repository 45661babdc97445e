// The metadata fields every record carries (API reference 2.3), and what lists may do with them (D11).
import type { StorageKind } from './field-types.js'

export const META = {
  id: '_id',
  created: '_created',
  createdBy: '_created_by',
  modified: '_modified',
  modifiedBy: '_modified_by',
  version: '_version',
  hash: '_hash',
  deleted: '_deleted',
} as const

/**
 * Added to a record read whose stored encrypted values fail their check (issue #13 item 5):
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
]

/** Metadata a client may filter on (D11). */
export const FILTERABLE_META: readonly string[] = [META.createdBy, META.modifiedBy]
/** Metadata a client may sort on. */
export const SORTABLE_META: readonly string[] = [META.created, META.modified, META.version]

/** Keys starting with `_` in a request body are metadata: ignored, never applied (D7). */
export const isMetadataKey = (key: string): boolean => key.startsWith('_')

const BLIND_INDEX_PREFIX = '_bidx_'
export const blindIndexColumnOf = (field: string): string => `${BLIND_INDEX_PREFIX}${field}`
export const isBlindIndexColumn = (column: string): boolean => column.startsWith(BLIND_INDEX_PREFIX)

/** The masked value of an encrypted field for callers without `{module}.descifrar` (D15). */
export const MASK = '***'
