// Column types of the service's own columns per dialect (module columns: compile/field-types.ts).
import type { Dialect } from '../../compile/field-types.js'

export const DDL_TYPES: Readonly<Record<Dialect, { readonly bigint: string; readonly rowId: string }>> = {
  // SQLite: an INTEGER PRIMARY KEY is the rowid, ordered and never reused here.
  sqlite: { bigint: 'integer', rowId: 'integer' },
  postgres: { bigint: 'bigint', rowId: 'bigserial' },
}
