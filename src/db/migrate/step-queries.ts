// Each migration step as the Kysely queries that perform it: executed by apply.ts, compiled
// without running by `records migrate --dry-run` so the plan shows its exact SQL.
import { sql, type CompiledQuery } from 'kysely'
import { COLUMN_TYPES, type Dialect } from '../../compile/field-types.js'
import { blindIndexColumnOf, META } from '../../compile/metadata.js'
import type { ColumnSpec, IndexSpec, ModuleSpec, TableSpec } from '../../compile/types.js'
import type { Db } from '../database.js'
import { createTextSearch, dropTextSearch } from '../records/text-search-sql.js'
import { DDL_TYPES } from '../dialects/ddl.js'
import type { MigrationStep } from './plan.js'
import type { SchemaSnapshot } from './snapshot.js'

export interface StepQuery {
  compile(): CompiledQuery
  execute(): Promise<unknown>
}

export interface StepContext {
  readonly db: Db
  readonly dialect: Dialect
  readonly before: SchemaSnapshot
  readonly modules: readonly ModuleSpec[]
  /** Name a removed table or column is kept under: data is archived, never dropped. */
  readonly archiveName: (name: string) => string
}

const columnType = (dialect: Dialect, column: ColumnSpec) => sql.raw(COLUMN_TYPES[column.storage][dialect])

function createTable(context: StepContext, table: TableSpec): StepQuery {
  let builder = context.db.schema.createTable(table.name)
  for (const column of table.columns) {
    if (column.autoIncrement === true) {
      builder = builder.addColumn(column.name, sql.raw(DDL_TYPES[context.dialect].rowId), (c) => c.primaryKey())
      continue
    }
    builder = builder.addColumn(column.name, columnType(context.dialect, column), (c) =>
      column.nullable ? c : c.notNull(),
    )
  }
  return builder
}

function createIndex(context: StepContext, table: string, index: IndexSpec): StepQuery {
  let builder = context.db.schema
    .createIndex(index.name)
    .on(table)
    .columns([...index.columns])
  if (index.unique) builder = builder.unique()
  if (index.liveOnly) builder = builder.where(sql.ref(META.deleted), 'is', null)
  if (index.everyLiveRow === true) builder = builder.where(sql.ref(META.id), '<>', '')
  return builder
}

const addColumn = (context: StepContext, table: string, column: ColumnSpec): StepQuery =>
  context.db.schema
    .alterTable(table)
    .addColumn(column.name, columnType(context.dialect, column), (c) => (column.nullable ? c : c.notNull()))

/** The stored columns of a field before the change: its value and its blind index, if any. */
export function oldColumnsOf(before: SchemaSnapshot, table: string, field: string): string[] {
  const columns = new Set(before.modules[table]?.table.columns.map((c) => c.name) ?? [])
  return [field, blindIndexColumnOf(field)].filter((c) => columns.has(c))
}

/** Columns of a field that changes type, archived; the field starts again in new columns. */
function changeType(context: StepContext, step: MigrationStep & { kind: 'change_type' }): StepQuery[] {
  const spec = context.modules.find((m) => m.name === step.table)
  const field = spec?.fieldsByName.get(step.field)
  const fresh = spec?.table.columns.filter((c) => c.name === field?.column || c.name === field?.blindIndexColumn) ?? []
  const archive = oldColumnsOf(context.before, step.table, step.field).map((c) =>
    context.db.schema.alterTable(step.table).renameColumn(c, context.archiveName(c)),
  )
  return [...archive, ...fresh.map((c) => addColumn(context, step.table, c))]
}

/** The DDL of one step; data checks and value rewrites have none. */
export function stepQueries(context: StepContext, step: MigrationStep): StepQuery[] {
  const { db } = context
  switch (step.kind) {
    case 'create_table':
      return [createTable(context, step.table)]
    case 'add_column':
      return [addColumn(context, step.table, step.column)]
    case 'rename_column':
      return [db.schema.alterTable(step.table).renameColumn(step.from, step.to)]
    case 'create_index':
      return [createIndex(context, step.table, step.index)]
    case 'drop_index':
      return [db.schema.dropIndex(step.name).ifExists()]
    case 'create_text_search':
      return createTextSearch(db, context.dialect, step.table, step.columns)
    case 'drop_text_search':
      return dropTextSearch(db, context.dialect, step.table, step.columns)
    case 'remove_field':
      return oldColumnsOf(context.before, step.table, step.field).map((c) =>
        db.schema.alterTable(step.table).renameColumn(c, context.archiveName(c)),
      )
    case 'remove_module':
      return [db.schema.alterTable(step.table).renameTo(context.archiveName(step.table))]
    case 'change_type':
      return changeType(context, step)
    case 'narrow_enum':
    case 'require_field':
    case 'check_references':
    case 'encrypt_field':
    case 'decrypt_field':
    case 'rename_enum_value':
      return []
  }
}
