// The SQL table of a module: metadata columns, one column per field, blind-index
// columns for encrypted fields, and the indexes that unique, `index: true` and the module's
// `indexes:` (composite) ask for, and the live rows' index every list walks (D40).
import { compositeIndexName, fieldIndexOf, metaIndexNames } from '../config/database-names.js'
import type { ColumnSpec, FieldSpec, IndexSpec, TableSpec } from './types.js'
import { META, META_COLUMNS, ROW_COLUMN } from './metadata.js'

export function compileTable(
  name: string,
  fields: readonly FieldSpec[],
  composites: readonly (readonly string[])[],
): TableSpec {
  const columns: ColumnSpec[] = [
    { name: ROW_COLUMN, storage: 'integer', nullable: false, autoIncrement: true },
    ...META_COLUMNS,
  ]
  const meta = metaIndexNames(name)
  const indexes: IndexSpec[] = [
    { name: meta.id, columns: [META.id], unique: true, liveOnly: false },
    { name: meta.createdBy, columns: [META.createdBy], unique: false, liveOnly: true },
    // The live rows in creation order (D40): a list page's OFFSET walks this small index and skips
    // rows without opening them, where a scan of the table opens each one to read `_deleted`.
    { name: meta.live, columns: [ROW_COLUMN], unique: false, liveOnly: true, everyLiveRow: true },
  ]
  for (const field of fields) {
    columns.push({ name: field.column, storage: field.storage, nullable: true })
    // Encrypted values are searched and kept unique through their blind index (D16).
    const searchable = field.blindIndexColumn ?? field.column
    if (field.blindIndexColumn !== undefined)
      columns.push({ name: field.blindIndexColumn, storage: 'text', nullable: true })
    const index = fieldIndexOf(name, field.def)
    if (index !== undefined)
      indexes.push({
        name: index.name,
        columns: [searchable],
        unique: index.unique,
        liveOnly: true,
        ...(index.unique ? { field: field.name } : {}),
      })
  }
  // Composite indexes over live rows, on the same searchable columns as the single ones.
  for (const names of composites) {
    const searchable = names.map((n) => {
      const field = fields.find((f) => f.name === n)
      // The rules reject unknown fields (config/rules.ts): reaching this is a programmer's bug.
      if (field === undefined) throw new Error(`index [${names.join(', ')}] of ${name} names an unknown field`)
      return field.blindIndexColumn ?? field.column
    })
    indexes.push({ name: compositeIndexName(name, names), columns: searchable, unique: false, liveOnly: true })
  }
  const search = fields.filter((f) => f.def.searchable).map((f) => f.column)
  return search.length === 0 ? { name, columns, indexes } : { name, columns, indexes, search }
}
