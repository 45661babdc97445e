// Moves a whole installation to another database (`records copy --from sqlite:... --to
// postgres://...`): every record, account, audit entry, record version, sequence,
// revoked token, key-registry row and the schema state, value for value, so every `_hash` and the audit
// chain verify unchanged on the target. Run it with the service stopped.
import type { StorageKind } from '../../compile/field-types.js'
import type { ModuleSpec } from '../../compile/types.js'
import { copyRefused } from '../../errors.js'
import { sealAudit } from '../audit/log.js'
import { createChangeWatch } from '../change-watch.js'
import type { Database, Db, Row } from '../database.js'
import { VALUE_CONVERSIONS } from '../dialects/values.js'
import { applyMigration, readSnapshot, type MigrationOptions } from '../migrate/apply.js'
import { planMigration } from '../migrate/plan.js'
import { AUDIT_REQUEST_COLUMNS, SYSTEM_TABLES } from '../system-tables.js'
import { FILE_TABLES } from '../files/tables.js'
import { foldRecordIdCounters } from '../records/sequences.js'

export interface CopyOptions {
  readonly source: Database
  readonly target: Database
  /** The compiled modules.yaml; the source must already be migrated to it. */
  readonly modules: readonly ModuleSpec[]
  /** How the empty target is brought to `modules` first: its codec (target dialect), clock, time zone. */
  readonly migration: Pick<MigrationOptions, 'codec' | 'clock' | 'timezone'>
  /** Rows per INSERT (default: as many as stay under both dialects' parameter limits). */
  readonly batchSize?: number
  readonly onProgress?: (progress: { readonly table: string; readonly rows: number }) => void
}

export interface CopyResult {
  /** Rows copied per table. */
  readonly tables: Readonly<Record<string, number>>
}

interface TablePlan {
  readonly name: string
  /** Key that orders the rows (insertion order is kept); several columns: a composite key. */
  readonly orderBy: string | readonly string[]
  readonly columns: readonly { readonly name: string; readonly storage: StorageKind }[]
  /** A generated key the target must continue after (`_row`). */
  readonly generated?: string
}

const text = (name: string) => ({ name, storage: 'text' as const })
const integer = (name: string) => ({ name, storage: 'integer' as const })

/** The service's own tables; `_schema_state` is written by the target's migration. */
const SYSTEM_PLANS: readonly TablePlan[] = [
  { name: SYSTEM_TABLES.sequences, orderBy: 'prefix', columns: [text('prefix'), integer('year'), integer('value')] },
  {
    name: SYSTEM_TABLES.audit,
    orderBy: 'seq',
    columns: [
      integer('seq'),
      text('at'),
      text('user_id'),
      text('action'),
      text('module'),
      text('record_id'),
      integer('version'),
      text('record_hash'),
      text('fields'),
      text('prev_hash'),
      text('hash'),
      ...AUDIT_REQUEST_COLUMNS.map(text),
    ],
  },
  {
    name: SYSTEM_TABLES.versions,
    orderBy: ['module', 'record_id', 'version'],
    columns: [
      text('module'),
      text('record_id'),
      integer('version'),
      text('at'),
      text('user_id'),
      text('deleted'),
      text('data'),
      text('hash'),
    ],
  },
  { name: SYSTEM_TABLES.revokedTokens, orderBy: 'jti', columns: [text('jti'), integer('expires_at')] },
  { name: SYSTEM_TABLES.keys, orderBy: 'key_id', columns: [text('key_id')] },
  { name: SYSTEM_TABLES.keyState, orderBy: 'id', columns: [integer('id'), text('active_key_id')] },
  // D42: the secrets stay encrypted under the same keys; the target needs them as the source did.
  {
    name: SYSTEM_TABLES.secondFactors,
    orderBy: 'id',
    columns: [
      text('id'),
      text('account_id'),
      text('kind'),
      text('secret'),
      text('created_at'),
      text('confirmed_at'),
      integer('last_counter'),
    ],
  },
  {
    name: SYSTEM_TABLES.recoveryCodes,
    orderBy: ['account_id', 'code_hash'],
    columns: [text('account_id'), text('code_hash'), text('used_at')],
  },
  {
    name: SYSTEM_TABLES.retention,
    orderBy: ['module', 'record_id'],
    columns: ['module', 'record_id', 'reviewed_at', 'reviewed_by', 'blocked_at', 'blocked_by', 'hold_reference'].map(
      text,
    ),
  },
  // D41: an erased record's tombstone travels with the audit entries that name it.
  {
    name: SYSTEM_TABLES.tombstones,
    orderBy: ['module', 'record_id'],
    columns: ['module', 'record_id', 'erased_at', 'erased_by', 'motivo', 'basis'].map(text),
  },
]

function plansOf(modules: readonly ModuleSpec[]): TablePlan[] {
  const moduleTables = modules.map((m) => {
    const generated = m.table.columns.find((c) => c.autoIncrement === true)?.name
    return {
      name: m.table.name,
      orderBy: generated ?? m.table.columns[0]!.name,
      columns: m.table.columns,
      ...(generated === undefined ? {} : { generated }),
    }
  })
  return [...SYSTEM_PLANS, ...moduleTables]
}

async function rowCount(db: Db, table: string): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst()
  return Number(row?.['n'] ?? 0)
}

async function copyTable(options: CopyOptions, plan: TablePlan, trx: Db): Promise<number> {
  const from = VALUE_CONVERSIONS[options.source.dialect]
  const to = VALUE_CONVERSIONS[options.target.dialect]
  // PostgreSQL takes 65535 parameters per statement, SQLite 32766.
  const batch = options.batchSize ?? Math.max(1, Math.floor(30_000 / plan.columns.length))
  let copied = 0
  for (let offset = 0; ; offset += batch) {
    let page = options.source.db.selectFrom(plan.name).select(plan.columns.map((c) => c.name))
    for (const column of typeof plan.orderBy === 'string' ? [plan.orderBy] : plan.orderBy) page = page.orderBy(column)
    const rows = await page.limit(batch).offset(offset).execute()
    if (rows.length === 0) break
    const converted = rows.map((row) => {
      const out: Row = {}
      for (const { name, storage } of plan.columns) {
        const value = row[name]
        out[name] = value === null || value === undefined ? null : to[storage].toDb(from[storage].fromDb(value))
      }
      return out
    })
    await trx.insertInto(plan.name).values(converted).execute()
    copied += rows.length
    options.onProgress?.({ table: plan.name, rows: copied })
    if (rows.length < batch) break
  }
  if (plan.generated !== undefined) await options.target.continueGenerated(trx, plan.name, plan.generated)
  return copied
}

/**
 * Copies everything from `source` to an empty `target` in one target transaction: all of it
 * or nothing. Refuses a target that holds any row, and a source not migrated to `modules`.
 */
export async function copyDatabase(options: CopyOptions): Promise<CopyResult> {
  const { source, target, modules } = options
  const pending = planMigration(await readSnapshot(source), modules)
  if (pending.length > 0)
    throw copyRefused(
      `La base de datos de origen no está al día con modules.yaml (${pending.length} cambios pendientes): arranque el servicio sobre ella o migre antes de copiar`,
    )
  // D43: evidence files are not carried yet (SQLite keeps them in DATA_DIR): refused, not half copied.
  if ((await rowCount(source.db, FILE_TABLES.files)) > 0)
    throw copyRefused(
      'La base de datos de origen tiene ficheros de prueba (D43): records copy todavía no los copia; la instalación no se puede mover con esta versión',
    )
  const existing = (await readSnapshot(target)).modules
  const plans = plansOf(modules)
  for (const plan of plans) {
    const exists = SYSTEM_PLANS.includes(plan) || existing[plan.name] !== undefined
    if (exists && (await rowCount(target.db, plan.name)) > 0)
      throw copyRefused(
        `La base de datos de destino no está vacía (la tabla '${plan.name}' tiene datos): la copia solo se hace a una base de datos nueva`,
      )
  }
  // PostgreSQL source (D37, D38): id counters read from their sequences, no entry left pending.
  await foldRecordIdCounters(source)
  await sealAudit(source, createChangeWatch(source))
  await applyMigration(target, modules, { ...options.migration, safeOnly: true })
  const tables: Record<string, number> = {}
  await target.db.transaction().execute(async (trx) => {
    for (const plan of plans) tables[plan.name] = await copyTable(options, plan, trx)
  })
  return { tables }
}
