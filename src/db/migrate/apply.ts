// Executes a migration plan in one transaction: all of it or none of it.
import { sql, type Transaction } from 'kysely'
import { COLUMN_TYPES, type Dialect } from '../../compile/field-types.js'
import { META } from '../../compile/metadata.js'
import type { ColumnSpec, IndexSpec, ModuleSpec } from '../../compile/types.js'
import type { Database, Db, DynamicDb } from '../database.js'
import { DDL_TYPES } from '../dialects/ddl.js'
import { createSystemTables } from './system-tables.js'
import { isUnsafe, describeStep, planMigration, type MigrationStep } from './plan.js'
import { EMPTY_SNAPSHOT, snapshotOf, type SchemaSnapshot } from './snapshot.js'

type Trx = Transaction<DynamicDb>

export class MigrationRefused extends Error {
  readonly steps: readonly string[]
  constructor(reason: string, steps: readonly string[]) {
    super(`${reason}:\n${steps.map((s) => `  - ${s}`).join('\n')}`)
    this.name = 'MigrationRefused'
    this.steps = steps
  }
}

async function snapshotIn(db: Db, dialect: Dialect): Promise<SchemaSnapshot> {
  await createSystemTables(db, dialect)
  const row = await db.selectFrom('_schema_state').select('snapshot').where('id', '=', 1).executeTakeFirst()
  return row === undefined ? EMPTY_SNAPSHOT : (JSON.parse(String(row['snapshot'])) as SchemaSnapshot)
}

export async function readSnapshot(database: Database): Promise<SchemaSnapshot> {
  return snapshotIn(database.db, database.dialect)
}

function addColumn(trx: Trx, dialect: Dialect, table: string, column: ColumnSpec) {
  const type = sql.raw(COLUMN_TYPES[column.storage][dialect])
  return trx.schema.alterTable(table).addColumn(column.name, type, (c) => (column.nullable ? c : c.notNull()))
}

async function createTable(trx: Trx, dialect: Dialect, spec: MigrationStep & { kind: 'create_table' }): Promise<void> {
  let builder = trx.schema.createTable(spec.table.name)
  for (const column of spec.table.columns) {
    if (column.autoIncrement === true) {
      builder = builder.addColumn(column.name, sql.raw(DDL_TYPES[dialect].rowId), (c) => c.primaryKey())
      continue
    }
    builder = builder.addColumn(column.name, sql.raw(COLUMN_TYPES[column.storage][dialect]), (c) => (column.nullable ? c : c.notNull()))
  }
  await builder.execute()
}

async function createIndex(trx: Trx, table: string, index: IndexSpec): Promise<void> {
  let builder = trx.schema.createIndex(index.name).on(table).columns([...index.columns])
  if (index.unique) builder = builder.unique()
  if (index.liveOnly) builder = builder.where(sql.ref(META.deleted), 'is', null)
  await builder.execute()
}

/** Live rows whose `column` is null, or holds a value outside `allowed`. */
async function countLive(trx: Trx, table: string, column: string, allowed?: readonly string[]): Promise<number> {
  const base = trx.selectFrom(table).select(sql<number>`count(*)`.as('n')).where(META.deleted, 'is', null)
  const query = allowed === undefined ? base.where(column, 'is', null) : base.where(column, 'is not', null).where(column, 'not in', [...allowed])
  const row = await query.executeTakeFirst()
  return Number(row?.n ?? 0)
}

async function checkData(trx: Trx, step: MigrationStep): Promise<string | undefined> {
  if (step.kind === 'narrow_enum') {
    const n = await countLive(trx, step.table, step.field, step.allowed)
    return n > 0 ? `${n} registros de '${step.table}' tienen en '${step.field}' valores fuera de la nueva lista (${step.allowed.join(', ')})` : undefined
  }
  if (step.kind === 'require_field') {
    const n = await countLive(trx, step.table, step.field)
    return n > 0 ? `${n} registros de '${step.table}' no tienen valor en el nuevo campo obligatorio '${step.field}' y no hay valor por defecto` : undefined
  }
  return undefined
}

async function applyStep(trx: Trx, dialect: Dialect, step: MigrationStep): Promise<void> {
  switch (step.kind) {
    case 'create_table': return createTable(trx, dialect, step)
    case 'add_column': return void (await addColumn(trx, dialect, step.table, step.column).execute())
    case 'rename_column': return void (await trx.schema.alterTable(step.table).renameColumn(step.from, step.to).execute())
    case 'create_index': return createIndex(trx, step.table, step.index)
    case 'drop_index': return void (await trx.schema.dropIndex(step.name).ifExists().execute())
    default: return // data checks only, or unsafe kinds refused before we get here
  }
}

export interface MigrationResult {
  readonly applied: readonly string[]
}

/**
 * Brings the database to `modules`: safe steps are applied in one transaction with the
 * new snapshot; unsafe ones, or data that a step would invalidate, refuse it whole.
 */
export async function applyMigration(database: Database, modules: readonly ModuleSpec[]): Promise<MigrationResult> {
  // Instances starting together on one PostgreSQL take turns: the second finds nothing to do.
  return database.db.transaction().execute(async (trx) => {
    await database.lock(trx, 'migration')
    const before = await snapshotIn(trx, database.dialect)
    const steps = planMigration(before, modules)
    const unsafe = steps.filter(isUnsafe)
    if (unsafe.length > 0)
      throw new MigrationRefused('modules.yaml pide cambios que reescriben o quitan datos; revíselos con `records migrate --dry-run`', unsafe.map(describeStep))
    if (steps.length === 0) return { applied: [] }
    const blocked: string[] = []
    for (const step of steps) {
      const reason = await checkData(trx, step)
      if (reason !== undefined) blocked.push(reason)
    }
    if (blocked.length > 0) throw new MigrationRefused('Los datos existentes impiden el cambio', blocked)
    for (const step of steps) await applyStep(trx, database.dialect, step)
    const snapshot = JSON.stringify(snapshotOf(modules))
    await trx.insertInto('_schema_state').values({ id: 1, snapshot })
      .onConflict((oc) => oc.column('id').doUpdateSet({ snapshot })).execute()
    return { applied: steps.map(describeStep) }
  })
}
