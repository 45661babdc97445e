// The migration plan as data: a pure diff of the stored snapshot and modules.yaml.
import { FIELD_TYPES } from '../../compile/field-types.js'
import { blindIndexColumnOf, META_COLUMNS } from '../../compile/metadata.js'
import type { ColumnSpec, IndexSpec, ModuleSpec, TableSpec } from '../../compile/types.js'
import type { SchemaSnapshot } from './snapshot.js'

export type MigrationStep =
  | { readonly kind: 'create_table'; readonly table: TableSpec }
  | { readonly kind: 'add_column'; readonly table: string; readonly column: ColumnSpec }
  | { readonly kind: 'rename_column'; readonly table: string; readonly from: string; readonly to: string }
  | { readonly kind: 'create_index'; readonly table: string; readonly index: IndexSpec }
  /** The text-search index of `?q=` over these columns; built from the rows already there. */
  | { readonly kind: 'create_text_search'; readonly table: string; readonly columns: readonly string[] }
  | { readonly kind: 'drop_text_search'; readonly table: string; readonly columns: readonly string[] }
  | { readonly kind: 'drop_index'; readonly table: string; readonly name: string }
  /** Existing rows must hold only `allowed` values (checked against the data). */
  | {
      readonly kind: 'narrow_enum'
      readonly table: string
      readonly field: string
      readonly removed: readonly string[]
      readonly allowed: readonly string[]
    }
  /**
   * A field became a reference to `target` (or points elsewhere now): existing live rows must
   * name live records of it (checked against the data).
   */
  | { readonly kind: 'check_references'; readonly table: string; readonly field: string; readonly target: string }
  /** A field became required: existing rows must all have it (checked against the data). */
  | { readonly kind: 'require_field'; readonly table: string; readonly field: string }
  | { readonly kind: 'remove_module'; readonly table: string }
  | { readonly kind: 'remove_field'; readonly table: string; readonly field: string }
  | {
      readonly kind: 'change_type'
      readonly table: string
      readonly field: string
      readonly from: string
      readonly to: string
    }
  | { readonly kind: 'encrypt_field' | 'decrypt_field'; readonly table: string; readonly field: string }
  /** Records holding `from` in an enum field get `to` instead (`renamed_values`). */
  | {
      readonly kind: 'rename_enum_value'
      readonly table: string
      readonly field: string
      readonly from: string
      readonly to: string
    }

/** Steps that rewrite or drop data: never applied at startup (`records migrate`). */
export const UNSAFE_KINDS: ReadonlySet<MigrationStep['kind']> = new Set([
  'remove_module',
  'remove_field',
  'change_type',
  'encrypt_field',
  'decrypt_field',
])

export const isUnsafe = (step: MigrationStep): boolean => UNSAFE_KINDS.has(step.kind)

const sameIndex = (a: IndexSpec, b: IndexSpec): boolean =>
  a.unique === b.unique &&
  a.liveOnly === b.liveOnly &&
  a.everyLiveRow === b.everyLiveRow &&
  a.columns.join(',') === b.columns.join(',')

function planModule(spec: ModuleSpec, before: SchemaSnapshot['modules'][string]): MigrationStep[] {
  const steps: MigrationStep[] = []
  const table = spec.name
  const oldColumns = new Set(before.table.columns.map((c) => c.name))
  const renamedAway = new Set<string>()
  // A metadata column every module gained since (`_sal`, F4): nullable, so added at startup; the
  // rows already there keep NULL, which their `_hash` never covered (D17).
  for (const column of META_COLUMNS) if (!oldColumns.has(column.name)) steps.push({ kind: 'add_column', table, column })
  for (const field of spec.fields) {
    const from = field.def.renamedFrom
    const renamed = before.fields[field.name] === undefined && from !== undefined ? before.fields[from] : undefined
    // A renamed field is then compared with its old self: a rename hides no other change.
    const previous = before.fields[field.name] ?? renamed
    if (renamed !== undefined && from !== undefined) {
      steps.push({ kind: 'rename_column', table, from, to: field.name })
      // The blind index moves with its value (D16).
      if (renamed.encrypted && field.blindIndexColumn !== undefined && oldColumns.has(blindIndexColumnOf(from)))
        steps.push({ kind: 'rename_column', table, from: blindIndexColumnOf(from), to: field.blindIndexColumn })
      renamedAway.add(from)
    }
    if (previous === undefined) {
      for (const column of spec.table.columns.filter(
        (c) => c.name === field.column || c.name === field.blindIndexColumn,
      ))
        if (!oldColumns.has(column.name)) steps.push({ kind: 'add_column', table, column })
      if (field.def.required && field.def.default === undefined)
        steps.push({ kind: 'require_field', table, field: field.name })
      continue
    }
    // Text that becomes a reference keeps its column: its values must resolve instead;
    // only a reference has `module:` (config/rules.ts).
    const keepsText =
      FIELD_TYPES[field.def.type].declaration.references &&
      field.storage === 'text' &&
      FIELD_TYPES[previous.type].storage === 'text'
    if (previous.type !== field.def.type && !(keepsText && !previous.encrypted))
      steps.push({ kind: 'change_type', table, field: field.name, from: previous.type, to: field.def.type })
    else if (field.def.module !== undefined && previous.module !== field.def.module)
      steps.push({ kind: 'check_references', table, field: field.name, target: field.def.module })
    if (previous.encrypted !== field.encrypted)
      steps.push({ kind: field.encrypted ? 'encrypt_field' : 'decrypt_field', table, field: field.name })
    const blind = spec.table.columns.find((c) => c.name === field.blindIndexColumn)
    if (blind !== undefined && !oldColumns.has(blind.name) && previous.encrypted !== field.encrypted)
      steps.push({ kind: 'add_column', table, column: blind })
    // A value renamed away is rewritten, not removed: the records that hold it keep a valid value.
    const renamedValues = Object.entries(field.def.renamedValues ?? {}).filter(
      ([from]) => previous.enum?.includes(from) === true,
    )
    for (const [from, to] of renamedValues)
      steps.push({ kind: 'rename_enum_value', table, field: field.name, from, to })
    const renamedAwayValues = renamedValues.map(([from]) => from)
    const removed = (previous.enum ?? []).filter(
      (v) => field.def.enum !== undefined && !field.def.enum.includes(v) && !renamedAwayValues.includes(v),
    )
    if (field.def.enum !== undefined && (previous.enum === undefined || removed.length > 0))
      steps.push({
        kind: 'narrow_enum',
        table,
        field: field.name,
        removed: previous.enum === undefined ? [] : removed,
        // Checked before the rename runs: the old names are still allowed then.
        allowed: [...field.def.enum, ...renamedAwayValues],
      })
    if (field.def.required && !previous.required && field.def.default === undefined)
      steps.push({ kind: 'require_field', table, field: field.name })
  }
  for (const name of Object.keys(before.fields))
    if (!spec.fieldsByName.has(name) && !renamedAway.has(name)) steps.push({ kind: 'remove_field', table, field: name })

  // A field that changes type has its columns archived (renamed) and new ones added: its
  // indexes, unique ones included, would follow the archived column. They are rebuilt.
  const retyped = new Set(
    steps.flatMap((s) => (s.kind === 'change_type' ? [s.field, blindIndexColumnOf(s.field)] : [])),
  )
  const onRetyped = (index: IndexSpec) => index.columns.some((c) => retyped.has(c))
  const oldIndexes = new Map(before.table.indexes.map((i) => [i.name, i]))
  const newIndexes = new Map(spec.table.indexes.map((i) => [i.name, i]))
  for (const [name, index] of oldIndexes) {
    const next = newIndexes.get(name)
    if (next === undefined || !sameIndex(index, next) || onRetyped(index))
      steps.push({ kind: 'drop_index', table, name })
  }
  for (const [name, index] of newIndexes) {
    const old = oldIndexes.get(name)
    if (old === undefined || !sameIndex(old, index) || onRetyped(old))
      steps.push({ kind: 'create_index', table, index })
  }
  return withTextSearch(steps, table, before.table.search ?? [], spec.table.search ?? [])
}

/**
 * The text-search index is dropped before a module's other steps and built again after them
 * when its columns change or one of them is renamed, retyped or removed: it names its columns.
 */
function withTextSearch(
  steps: MigrationStep[],
  table: string,
  before: readonly string[],
  after: readonly string[],
): MigrationStep[] {
  const touched = steps.some(
    (s) =>
      (s.kind === 'rename_column' && before.includes(s.from)) ||
      ((s.kind === 'change_type' || s.kind === 'remove_field') && before.includes(s.field)),
  )
  if (!touched && before.join(',') === after.join(',')) return steps
  return [
    ...(before.length > 0 ? [{ kind: 'drop_text_search', table, columns: before } as const] : []),
    ...steps,
    ...(after.length > 0 ? [{ kind: 'create_text_search', table, columns: after } as const] : []),
  ]
}

/** Pure: what must change in the database to serve `modules`, given what it was migrated to. */
export function planMigration(before: SchemaSnapshot, modules: readonly ModuleSpec[]): MigrationStep[] {
  const steps: MigrationStep[] = []
  // Removed modules first: a module added in the same change may ask for a name they free.
  for (const [name, module] of Object.entries(before.modules))
    if (!modules.some((m) => m.name === name)) {
      const search = module.table.search ?? []
      if (search.length > 0) steps.push({ kind: 'drop_text_search', table: name, columns: search })
      // The archived table keeps its rows, not its indexes: their names are the module's, and a
      // module of that name added again later makes them anew.
      for (const index of module.table.indexes) steps.push({ kind: 'drop_index', table: name, name: index.name })
      steps.push({ kind: 'remove_module', table: name })
    }
  for (const spec of modules) {
    const previous = before.modules[spec.name]
    if (previous === undefined) {
      steps.push({ kind: 'create_table', table: spec.table })
      for (const index of spec.table.indexes) steps.push({ kind: 'create_index', table: spec.name, index })
      if (spec.table.search !== undefined)
        steps.push({ kind: 'create_text_search', table: spec.name, columns: spec.table.search })
    } else steps.push(...planModule(spec, previous))
  }
  return steps
}

/** One line per step in plain Spanish, for logs and `records migrate --dry-run`. */
export function describeStep(step: MigrationStep): string {
  switch (step.kind) {
    case 'create_table':
      return `Crear el módulo '${step.table.name}'`
    case 'add_column':
      return `Añadir la columna '${step.column.name}' a '${step.table}'`
    case 'rename_column':
      return `Renombrar '${step.table}.${step.from}' a '${step.to}' conservando los datos`
    case 'create_index':
      return `Crear el índice ${step.index.unique ? 'único ' : ''}'${step.index.name}'`
    case 'drop_index':
      return `Eliminar el índice '${step.name}'`
    case 'create_text_search':
      return `Crear la búsqueda de texto de '${step.table}' sobre ${step.columns.join(', ')}`
    case 'drop_text_search':
      return `Quitar la búsqueda de texto de '${step.table}'`
    case 'narrow_enum':
      return `Restringir los valores de '${step.table}.${step.field}'${step.removed.length > 0 ? ` (se quitan: ${step.removed.join(', ')})` : ''}`
    case 'check_references':
      return `Hacer de '${step.table}.${step.field}' una referencia a '${step.target}' (cada valor debe ser el id de un registro vivo de ${step.target})`
    case 'require_field':
      return `Hacer obligatorio '${step.table}.${step.field}'`
    case 'remove_module':
      return `Quitar el módulo '${step.table}' (sus datos se conservarían en la base de datos)`
    case 'remove_field':
      return `Quitar el campo '${step.table}.${step.field}'`
    case 'change_type':
      return `Cambiar el tipo de '${step.table}.${step.field}' de ${step.from} a ${step.to}`
    case 'encrypt_field':
      return `Cifrar el campo '${step.table}.${step.field}' y sus valores existentes`
    case 'decrypt_field':
      return `Descifrar el campo '${step.table}.${step.field}' y sus valores existentes`
    case 'rename_enum_value':
      return (
        `Renombrar el valor '${step.from}' de '${step.table}.${step.field}' a '${step.to}' ` +
        'en los registros que lo tienen'
      )
  }
}
