// Shared tools of the data-protection suite (D14-D18, D25): markers, raw database access,
// an independent recomputation of `_hash`, and captured logs.
import { createHash, randomBytes } from 'node:crypto'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { sql, type RawBuilder } from 'kysely'
import type { FieldSpec, ModuleSpec } from '../../../src/compile/types.js'
import { RECORD_KEYS_TABLE } from '../../../src/db/keys/record-keys.js'
import { SYSTEM_TABLES } from '../../../src/db/system-tables.js'
import type { TestApi } from '../../helpers/api.js'

/** The roles of D21, in the order of the decision. */
export const ROLES = ['superadmin', 'administrador', 'jefe', 'oficial', 'agente', 'consulta'] as const
export type RoleName = (typeof ROLES)[number]

export const FORBIDDEN = 'Sin permisos para esta operación'

/** Modules with at least one encrypted field, with those fields (from the compiled spec). */
export function encryptedModules(api: TestApi): { spec: ModuleSpec; fields: FieldSpec[] }[] {
  return api.service.spec.modules
    .map((spec) => ({ spec, fields: spec.fields.filter((f) => f.encrypted) }))
    .filter((m) => m.fields.length > 0)
}

let counter = 0
/** A value nobody else writes: text fields get `MRK<n>x<hex>`, dates a 19xx date unique in the process. */
export function markerFor(field: FieldSpec): string {
  counter += 1
  if (field.def.type === 'date') {
    // Distinct per call within a process; 19xx dates appear nowhere else in a test database.
    const n = counter
    return `19${String(10 + (n % 80)).padStart(2, '0')}-${String(1 + (Math.floor(n / 80) % 12)).padStart(2, '0')}-${String(1 + (Math.floor(n / 960) % 28)).padStart(2, '0')}`
  }
  return `MRK${counter}x${randomBytes(8).toString('hex')}`
}

/** A random 32-byte key in the base64 form RECORDS_ENCRYPTION_KEY takes. */
export const newKey = (): string => randomBytes(32).toString('base64')

/** Every file under `dir` (recursively), with its bytes. */
export function filesUnder(dir: string): { path: string; bytes: Buffer }[] {
  const out: { path: string; bytes: Buffer }[] = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...filesUnder(path))
    else out.push({ path, bytes: readFileSync(path) })
  }
  return out
}

/** The forms a leaked marker could take in a file: UTF-8, UTF-16LE and base64. */
export function markerForms(marker: string): Buffer[] {
  return [
    Buffer.from(marker, 'utf8'),
    Buffer.from(marker, 'utf16le'),
    Buffer.from(Buffer.from(marker).toString('base64').slice(0, -4), 'utf8'),
  ]
}

/** The raw stored row, straight from the database, no codec involved. */
export async function rawRow(api: TestApi, table: string, id: string): Promise<Record<string, unknown>> {
  const rows = await sql<Record<string, unknown>>`select * from ${sql.table(table)} where _id = ${id}`.execute(
    api.service.database.db,
  )
  const row = rows.rows[0]
  if (row === undefined) throw new Error(`no row ${table}/${id}`)
  return row
}

/**
 * Every row of every table, as text: what an administrator with database access sees. On
 * PostgreSQL this stands in for scanning the SQLite file (the files are the server's), and holds
 * the per-record data keys' table (D41), which on SQLite is a file of its own.
 */
export async function storedText(api: TestApi): Promise<string> {
  const tables = [...api.service.spec.modules.map((m) => m.table.name), ...Object.values(SYSTEM_TABLES)]
  if (api.service.database.dialect === 'postgres') tables.push(RECORD_KEYS_TABLE)
  const parts: string[] = []
  for (const table of tables)
    parts.push(JSON.stringify(await api.service.database.db.selectFrom(table).selectAll().execute()))
  return parts.join('\n')
}

/** Runs SQL behind the service's back, as an administrator with database access would. */
export async function tamper(api: TestApi, query: RawBuilder<unknown>): Promise<number> {
  const result = await query.execute(api.service.database.db)
  return Number(result.numAffectedRows ?? 0)
}

export async function auditRows(api: TestApi): Promise<Record<string, unknown>[]> {
  return (await sql<Record<string, unknown>>`select * from _audit order by seq`.execute(api.service.database.db)).rows
}

/** Canonical JSON written here again, independently of src/db/canonical.ts. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`
  return JSON.stringify(value)
}

/**
 * D17 from the raw row: metadata and field columns, encrypted fields as their ciphertext,
 * JSON columns parsed, booleans as booleans; `_hash`, `_row` and `_bidx_*` left out.
 */
export function expectedHash(spec: ModuleSpec, raw: Record<string, unknown>): string {
  const stored: Record<string, unknown> = {}
  for (const [column, value] of Object.entries(raw)) {
    if (column === '_hash' || column === '_row' || column.startsWith('_bidx_')) continue
    const field = spec.fields.find((f) => f.column === column)
    // An empty field is left out, so adding a field to modules.yaml changes no stored hash;
    // so is the salt of a record written before salts were kept (F4).
    if (value === null && (field !== undefined || column === '_sal')) continue
    if (value === null || field === undefined || field.encrypted) stored[column] = value
    // SQLite hands JSON over as text and booleans as 0/1; PostgreSQL as jsonb and boolean.
    else if (field.def.type === 'array' || field.def.type === 'mixed')
      stored[column] = typeof value === 'string' ? JSON.parse(value) : value
    else if (field.def.type === 'boolean') stored[column] = value === 1 || value === true
    else stored[column] = value
  }
  return createHash('sha256').update(canonical(stored), 'utf8').digest('hex')
}

/** A pino destination that keeps every line, for asserting what the logs never say. */
export function captureLogs(): { stream: Writable; text: () => string } {
  const lines: string[] = []
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'))
      done()
    },
  })
  return { stream, text: () => lines.join('') }
}

/**
 * Read audits are buffered (20 ms in the tests, READ_AUDIT_DELAY_MS; more on a loaded machine):
 * asks again every 10 ms until `predicate` holds or 30 s pass.
 */
export async function eventually<T>(
  probe: () => Promise<T>,
  predicate: (value: T) => boolean,
  ms = 30_000,
): Promise<T> {
  const until = Date.now() + ms
  for (;;) {
    const value = await probe()
    if (predicate(value) || Date.now() > until) return value
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/**
 * Waits until every consultation entry recorded so far is in the trail: a test that counts the
 * trail's entries reads it whole, not before a batch still on its way (slower on PostgreSQL).
 */
export async function consultationsWritten(api: TestApi): Promise<void> {
  await eventually(
    async () => api.service.consultationLog().unwritten,
    (unwritten) => unwritten === 0,
  )
}
