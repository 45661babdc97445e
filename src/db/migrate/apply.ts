// Reviews and executes a migration plan in one transaction: all of it or none of it.
// The server applies only safe plans at startup; `records migrate` reviews the rest.
import { formatExactTimestamp } from '../../compile/time.js'
import type { ModuleSpec } from '../../compile/types.js'
import { migrationRefused } from '../../errors.js'
import { archiveName } from '../../config/database-names.js'
import type { Dialect } from '../../compile/field-types.js'
import type { Database, Db } from '../database.js'
import type { RecordCodec } from '../records/codec.js'
import { affectedRecords } from './affected.js'
import { dropArchivedIndexesInTheWay } from './archived-indexes.js'
import { describeStep, isUnsafe, planMigration, type MigrationStep } from './plan.js'
import { rewriteRecords, rewritesData } from './rewrite.js'
import { rewriteVersions } from './rewrite-versions.js'
import { EMPTY_SNAPSHOT, snapshotOf, type SchemaSnapshot } from './snapshot.js'
import { stepQueries, type StepContext } from './step-queries.js'
import { createSystemTables } from '../system-tables.js'

async function snapshotIn(db: Db, dialect: Dialect): Promise<SchemaSnapshot> {
  await createSystemTables(db, dialect)
  const row = await db.selectFrom('_schema_state').select('snapshot').where('id', '=', 1).executeTakeFirst()
  return row === undefined ? EMPTY_SNAPSHOT : (JSON.parse(String(row['snapshot'])) as SchemaSnapshot)
}

export async function readSnapshot(database: Database): Promise<SchemaSnapshot> {
  return snapshotIn(database.db, database.dialect)
}

/** Kinds that take values out of the API (kept in archived columns or tables). */
const DATA_LOSS: ReadonlySet<MigrationStep['kind']> = new Set(['remove_module', 'remove_field', 'change_type'])
/** Kinds whose existing values a live record would fail (left as they are if allowed). */
const DATA_CHECKED: ReadonlySet<MigrationStep['kind']> = new Set(['narrow_enum', 'require_field', 'check_references'])

export interface ReviewedStep {
  readonly step: MigrationStep
  readonly description: string
  /** The SQL it runs, compiled by Kysely; value rewrites are described in words. */
  readonly sql: readonly string[]
  /** Records whose data the step would take out of the API or leave invalid. */
  readonly affected: readonly string[]
  /** Needs `allowDataLoss`: refused otherwise. */
  readonly blocked: boolean
}

export interface MigrationReview {
  readonly steps: readonly ReviewedStep[]
  readonly blocked: boolean
}

export interface MigrationOptions {
  readonly codec: RecordCodec
  readonly clock: () => Date
  readonly timezone: string
  /** Apply steps that take data out of the API (archived, never dropped). */
  readonly allowDataLoss?: boolean
  /** Startup: refuse every unsafe kind, even those `records migrate` may apply. */
  readonly safeOnly?: boolean
}

const compactStamp = (at: string): string => at.replace(/\D/g, '').slice(0, 14)

function contextFor(
  database: Database,
  db: StepContext['db'],
  before: SchemaSnapshot,
  modules: readonly ModuleSpec[],
  at: string,
): StepContext {
  return {
    db,
    dialect: database.dialect,
    before,
    modules,
    archiveName: (name) => archiveName(compactStamp(at), name),
  }
}

function rewriteSql(database: Database, step: MigrationStep): string[] {
  if (!rewritesData(step) || step.kind === 'create_table') return []
  const compiled = database.db.updateTable(step.table).set({ _hash: '…' }).where('_id', '=', '…').compile().sql
  const values =
    step.kind === 'encrypt_field'
      ? 'cifrados'
      : step.kind === 'decrypt_field'
        ? 'descifrados'
        : step.kind === 'rename_enum_value'
          ? `'${step.from}' pasa a '${step.to}'`
          : 'sin cambios'
  const comment = `-- por cada registro cuyo contenido cambia: valores ${values}, nuevo _hash y entrada 'migrar'`
  return [`${comment} en la auditoría`, compiled]
}

/** The plan with its SQL and the records each step affects; changes nothing but system tables. */
export async function reviewMigration(
  database: Database,
  modules: readonly ModuleSpec[],
  clock: () => Date,
  timezone: string,
): Promise<MigrationReview> {
  const before = await readSnapshot(database)
  const context = contextFor(database, database.db, before, modules, formatExactTimestamp(clock(), timezone))
  const steps: ReviewedStep[] = []
  for (const step of planMigration(before, modules)) {
    const checked = DATA_LOSS.has(step.kind) || DATA_CHECKED.has(step.kind)
    // A renamed enum value blocks nothing: its records are listed so the administrator sees whose change.
    const listed = checked || step.kind === 'rename_enum_value'
    const affected = listed ? await affectedRecords(database.db, before, step) : []
    steps.push({
      step,
      description: describeStep(step),
      sql: [...stepQueries(context, step).map((q) => `${q.compile().sql};`), ...rewriteSql(database, step)],
      affected,
      blocked: checked && affected.length > 0,
    })
  }
  return { steps, blocked: steps.some((s) => s.blocked) }
}

/**
 * The start's refusal, naming the exact command that applies the plan: `records migrate`, or
 * `records migrate --allow-data-loss` when existing records block a step (each step with its count).
 */
async function startRefusal(db: Db, before: SchemaSnapshot, unsafe: readonly MigrationStep[]) {
  let blocking = 0
  const items: string[] = []
  for (const step of unsafe) {
    const checked = DATA_LOSS.has(step.kind) || DATA_CHECKED.has(step.kind)
    const affected = checked ? (await affectedRecords(db, before, step)).length : 0
    blocking += affected
    items.push(affected > 0 ? `${describeStep(step)}: ${affected} registros afectados` : describeStep(step))
  }
  const apply =
    blocking > 0
      ? `aplíquelos con \`records migrate --allow-data-loss\` (${blocking} registros afectados: revíselos antes)`
      : 'aplíquelos con `records migrate`'
  return migrationRefused(
    `modules.yaml pide cambios que reescriben o quitan datos; revíselos con \`records migrate --dry-run\` y ${apply}`,
    items,
  )
}

export interface MigrationResult {
  readonly applied: readonly string[]
  /** Records whose stored values or `_hash` the migration rewrote. */
  readonly rewritten: number
}

/**
 * Brings the database to `modules` in one transaction with the new snapshot. Refused whole
 * when a step would take data out of the API without `allowDataLoss`; at startup
 * (`safeOnly`) every unsafe kind is refused and left to `records migrate`.
 */
export async function applyMigration(
  database: Database,
  modules: readonly ModuleSpec[],
  options: MigrationOptions,
): Promise<MigrationResult> {
  // Instances starting together on one PostgreSQL take turns: the second finds nothing to do.
  return database.db.transaction().execute(async (trx) => {
    await database.lock(trx, 'migration')
    const before = await snapshotIn(trx, database.dialect)
    const steps = planMigration(before, modules)
    const unsafe = steps.filter(isUnsafe)
    if (options.safeOnly === true && unsafe.length > 0) throw await startRefusal(trx, before, unsafe)
    if (steps.length === 0) return { applied: [], rewritten: 0 }
    const at = formatExactTimestamp(options.clock(), options.timezone)
    if (options.allowDataLoss !== true) {
      const blocked: string[] = []
      for (const step of steps) {
        const affected =
          DATA_LOSS.has(step.kind) || DATA_CHECKED.has(step.kind) ? await affectedRecords(trx, before, step) : []
        if (affected.length > 0)
          blocked.push(
            `${describeStep(step)}: ${affected.length} registros afectados (${affected.slice(0, 10).join(', ')}${affected.length > 10 ? ', …' : ''})`,
          )
      }
      if (blocked.length > 0)
        throw migrationRefused(
          'Los datos existentes impiden el cambio; nada se ha modificado (revíselo con `records migrate --dry-run`; ' +
            '`records migrate --allow-data-loss` lo aplica sin borrar nada: archiva o deja esos valores)',
          blocked,
        )
    }
    const context = contextFor(database, trx, before, modules, at)
    await dropArchivedIndexesInTheWay(trx, database.dialect, steps)
    for (const step of steps) for (const query of stepQueries(context, step)) await query.execute()
    const rewritten = await rewriteRecords({ database, trx, codec: options.codec, modules, steps, at })
    await rewriteVersions(trx, options.codec, modules, steps)
    const snapshot = JSON.stringify(snapshotOf(modules))
    await trx
      .insertInto('_schema_state')
      .values({ id: 1, snapshot })
      .onConflict((oc) => oc.column('id').doUpdateSet({ snapshot }))
      .execute()
    return { applied: steps.map(describeStep), rewritten }
  })
}
