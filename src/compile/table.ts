// The SQL table of a module: metadata columns, one column per field, blind-index
// columns for encrypted fields, and the indexes that unique, `index: true` and the module's
// `indexes:` (composite, issue #7) ask for, and the live rows' index every list walks (D40).
import { compositeIndexName } from './index-name.js'
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
  const indexes: IndexSpec[] = [
    { name: `ux_${name}__id`, columns: [META.id], unique: true, liveOnly: false },
    { name: `ix_${name}__created_by`, columns: [META.createdBy], unique: false, liveOnly: true },
    // The live rows in creation order (D40): a list page's OFFSET walks this small index and skips
    // rows without opening them, where a scan of the table opens each one to read `_deleted`.
    { name: `ix_${name}__live`, columns: [ROW_COLUMN], unique: false, liveOnly: true, everyLiveRow: true },
  ]
  for (const field of fields) {
    columns.push({ name: field.column, storage: field.storage, nullable: true })
    // Encrypted values are searched and kept unique through their blind index (D16).
    const searchable = field.blindIndexColumn ?? field.column
    if (field.blindIndexColumn !== undefined)
      columns.push({ name: field.blindIndexColumn, storage: 'text', nullable: true })
    if (field.def.unique)
      indexes.push({
        name: `ux_${name}_${field.name}`,
        columns: [searchable],
        unique: true,
        liveOnly: true,
        field: field.name,
      })
    // A reference is always indexed: a delete of its target looks up who still points to it (#16).
    else if (field.def.index || field.def.type === 'ref')
      indexes.push({ name: `ix_${name}_${field.name}`, columns: [searchable], unique: false, liveOnly: true })
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
