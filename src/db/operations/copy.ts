// Moves a whole installation to another database (`records copy --from sqlite:... --to
// postgres://...`): every record, account, audit entry, record version, sequence,
// revoked token, key-registry row, evidence file (D43) and the schema state, value for value, so
// every `_hash`, the audit chain and every file's SHA-256 verify unchanged on the target. Run it
// with the service stopped.
import { copyRecordKeys, RECORD_KEYS_TABLE, type RecordKeys } from '../keys/record-keys.js'
import { createHash } from 'node:crypto'
import { readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { StorageKind } from '../../compile/field-types.js'
import type { ModuleSpec } from '../../compile/types.js'
import { AppError, copyRefused } from '../../errors.js'
import type { FieldCipher } from '../crypto.js'
import { copyBlob, createBlobStore } from '../files/blobs.js'
import { fileKeyContext } from '../files/rewrap.js'
import { checkedSealedSegments } from '../files/segments.js'
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
  /**
   * D43: where each side keeps its files' sealed bytes on SQLite (its DATA_DIR; PostgreSQL keeps
   * them in the database) and the cipher that unwraps the files' keys, to check each file as it goes.
   */
  readonly files: {
    readonly sourceDir: string
    readonly targetDir: string
    readonly cipher: FieldCipher
  }
  readonly onProgress?: (progress: { readonly table: string; readonly rows: number }) => void
  /**
   * D41: the per-record data keys, the source's store and the target's. They are copied first (on
   * SQLite committed in the target's key database before any record: a failure leaves at most keys
   * nothing uses), and a target whose key store holds any row is not empty.
   */
  readonly recordKeys?: { readonly from: RecordKeys; readonly to: RecordKeys }
}

export interface CopyResult {
  /** Rows copied per table. */
  readonly tables: Readonly<Record<string, number>>
  /** D43: evidence files copied and their plaintext bytes. */
  readonly files: { readonly count: number; readonly bytes: number }
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
  // D43: the files' rows as they are (same blob ids, same wrapped keys); their bytes by copyFiles.
  {
    name: FILE_TABLES.files,
    orderBy: ['module', 'record_id', 'field', 'n'],
    columns: [
      ...['module', 'record_id', 'field'].map(text),
      integer('n'),
      text('sha256'),
      integer('size'),
      ...['type', 'name', 'blob', 'file_key', 'at', 'user_id'].map(text),
    ],
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
  const existing = (await readSnapshot(target)).modules
  const plans = plansOf(modules)
  for (const plan of plans) {
    const exists = SYSTEM_PLANS.includes(plan) || existing[plan.name] !== undefined
    if (exists && (await rowCount(target.db, plan.name)) > 0)
      throw copyRefused(
        `La base de datos de destino no está vacía (la tabla '${plan.name}' tiene datos): la copia solo se hace a una base de datos nueva`,
      )
  }
  await refuseTargetFiles(options)
  if (options.recordKeys !== undefined && !(await options.recordKeys.to.isEmpty()))
    throw copyRefused(
      `La base de datos de destino no está vacía (su almacén de claves de datos ${options.recordKeys.to.location} tiene claves): la copia solo se hace a una base de datos nueva`,
    )
  // PostgreSQL source (D37, D38): id counters read from their sequences, no entry left pending.
  await foldRecordIdCounters(source)
  await sealAudit(source, createChangeWatch(source))
  await applyMigration(target, modules, { ...options.migration, safeOnly: true })
  const tables: Record<string, number> = {}
  try {
    const files = await target.db.transaction().execute(async (trx) => {
      if (options.recordKeys !== undefined) {
        const keys = await copyRecordKeys(options.recordKeys.from, options.recordKeys.to, trx)
        tables[RECORD_KEYS_TABLE] = keys
        options.onProgress?.({ table: RECORD_KEYS_TABLE, rows: keys })
      }
      for (const plan of plans) tables[plan.name] = await copyTable(options, plan, trx)
      return copyFiles(options, trx)
    })
    return { tables, files }
  } catch (error) {
    // SQLite target: the files written so far go with the rolled-back rows (the folder was empty).
    if (target.dialect !== 'postgres') await rm(filesFolder(options.files.targetDir), { recursive: true, force: true })
    throw error
  }
}

const filesFolder = (dataDir: string): string => join(dataDir, 'ficheros')

/** D43: a target already holding sealed bytes is not empty either (SQLite: DATA_DIR/ficheros). */
async function refuseTargetFiles({ target, files }: CopyOptions): Promise<void> {
  const where =
    target.dialect === 'postgres'
      ? (await rowCount(target.db, FILE_TABLES.chunks)) > 0
        ? `la tabla '${FILE_TABLES.chunks}' tiene datos`
        : undefined
      : (await readdir(filesFolder(files.targetDir)).catch(() => [])).length > 0
        ? `la carpeta ${filesFolder(files.targetDir)} tiene ficheros`
        : undefined
  if (where !== undefined)
    throw copyRefused(
      `La base de datos de destino no está vacía (${where}): la copia solo se hace a una base de datos nueva`,
    )
}

/**
 * D43: each file's sealed bytes, streamed one segment at a time from the source's store to the
 * target's under the same blob id, each segment's tag checked and the plaintext re-hashed on the
 * way: a file whose SHA-256 or size is not that of its upload stops the copy (nothing stays).
 */
async function copyFiles(options: CopyOptions, trx: Db): Promise<{ count: number; bytes: number }> {
  const { source, target, files } = options
  const blobs = createBlobStore(source, files.sourceDir)
  const rows = await source.db
    .selectFrom(FILE_TABLES.files)
    .select(['module', 'record_id', 'field', 'n', 'sha256', 'size', 'blob', 'file_key'])
    .orderBy('module')
    .orderBy('record_id')
    .orderBy('field')
    .orderBy('n')
    .execute()
  let bytes = 0
  for (const [index, row] of rows.entries()) {
    const place = { module: String(row['module']), recordId: String(row['record_id']) }
    const blob = String(row['blob'])
    const name = `${place.module}/${place.recordId}/${String(row['field'])}/${String(row['n'])}`
    const hash = createHash('sha256')
    let size = 0
    try {
      const key = Buffer.from(files.cipher.decrypt(String(row['file_key']), fileKeyContext(blob)), 'base64')
      const segments = checkedSealedSegments(key, blobs.read(place, blob), (plain) => {
        hash.update(plain)
        size += plain.length
      })
      await copyBlob(target, trx, files.targetDir, place, blob, segments)
    } catch (error) {
      // A missing or altered blob, or a key not configured here (integrity errors); anything else
      // (the target failing) as it is.
      if (!(error instanceof AppError && error.code === 'INTEGRITY')) throw error
      const cause = error.cause instanceof Error ? error.cause : error
      throw copyRefused(
        `El fichero ${name} del origen no se puede leer (${cause.message}): la copia no se hace; compruebe el origen con records files verify`,
      )
    }
    const sha256 = hash.digest('hex')
    if (sha256 !== row['sha256'] || size !== Number(row['size']))
      throw copyRefused(
        `El fichero ${name} del origen está alterado (SHA-256 ${sha256}, ${size} bytes; se esperaba ${String(row['sha256'])}, ${String(row['size'])} bytes): la copia no se hace; compruebe el origen con records files verify`,
      )
    bytes += size
    options.onProgress?.({ table: 'ficheros', rows: index + 1 })
  }
  return { count: rows.length, bytes }
}
