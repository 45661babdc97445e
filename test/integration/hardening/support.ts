// Shared tools of the hardening suites: run sizes, the envelope invariant and a
// snapshot of everything a write may change.
import { sql } from 'kysely'
import type { Database } from '../../../src/db/database.js'
import { SYSTEM_TABLES } from '../../../src/db/system-tables.js'
import type { ServiceSpec } from '../../../src/compile/types.js'

/**
 * Cases per property. `npm test` runs a short seeded pass; `HARDENING_RUNS=5000 npx tap
 * test/integration/hardening` a long one. `HARDENING_SEED` replays a failure fast-check printed.
 */
export const RUNS = Number(process.env['HARDENING_RUNS'] ?? 0) || undefined
export const SEED = Number(process.env['HARDENING_SEED'] ?? 20261122)
export const runs = (short: number): number => RUNS ?? short
export const LONG = RUNS !== undefined

/** Why a reply breaks the envelope of API reference 2.1 / STYLE 4, or undefined when it keeps it. */
export function envelopeProblem(status: number, body: unknown): string | undefined {
  if (status >= 500) return `status ${status}`
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return 'body is not a JSON object'
  const b = body as Record<string, unknown>
  const keys = Object.keys(b).sort().join(',')
  if (status < 400)
    return b['success'] === true && typeof b['data'] === 'object' && b['data'] !== null && keys === 'data,success'
      ? undefined
      : `bad success body ${keys}`
  if (b['success'] !== false || typeof b['error'] !== 'string' || b['error'] === '') return 'bad error body'
  if (!['error,success', 'details,error,success'].includes(keys)) return `extra keys ${keys}`
  if (b['details'] !== undefined && !Array.isArray(b['details'])) return 'details is not an array'
  // Client input may be echoed ("Campo de filtro desconocido 'sqlite_master'"); driver errors may not.
  if (/\bat .*\.(ts|js):\d+|SQLITE_[A-Z]|no such (column|table)|syntax error|near "[^"]*": /.test(JSON.stringify(b)))
    return 'stack or driver text in the message'
  return undefined
}

/**
 * What any write can change: rows and version sums of every module table, the id sequences
 * and the write entries of the audit chain. Read audits ('consultar') flush on a timer, so
 * they are left out: a read between two snapshots must not look like a write.
 */
export async function snapshot(database: Database, service: ServiceSpec): Promise<string> {
  const { db } = database
  const parts: unknown[] = []
  for (const spec of service.modules) {
    const r = await sql<{
      n: number
      v: number
      h: string
    }>`select count(*) as n, coalesce(sum(_version), 0) as v, max(_modified) as h from ${sql.table(spec.table.name)}`.execute(
      db,
    )
    parts.push([spec.name, r.rows[0]])
  }
  parts.push(
    (await sql`select prefix, year, value from ${sql.table(SYSTEM_TABLES.sequences)} order by prefix, year`.execute(db))
      .rows,
  )
  parts.push(
    (
      await sql`select count(*) as n, max(seq) as s from ${sql.table(SYSTEM_TABLES.audit)} where action <> 'consultar'`.execute(
        db,
      )
    ).rows,
  )
  return JSON.stringify(parts)
}

/** The same value after a JSON round trip: what a client can expect to read back. */
export const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value))
