// The cost of the consultation log, in the same run as the rest of the bench: two
// services in process on the seeded database, one logging consultations and one not (the
// engine's bench-only `consultationLog: false`), driven alternately through app.inject on the
// reads of S1-S3; then the audit rows and bytes one list request writes (limit=100 and 1000).
import { performance } from 'node:perf_hooks'
import { sql } from 'kysely'
import { openService, type OpenService } from '../../src/app/service.js'
import type { Settings } from '../../src/app/settings.js'
import { ESTADOS, PRIORIDADES } from './seed.js'

export interface ConsultationCost {
  readonly scenarios: readonly { readonly name: string; readonly onRps: number; readonly offRps: number }[]
  /** Audit rows and bytes (all columns, as text) written per list request, by page size. */
  readonly perList: readonly { readonly limit: number; readonly rows: number; readonly bytes: number }[]
}

/** The API's prefix (BASE_PATH), '' when served at the root. */
const prefixes = new WeakMap<OpenService, string>()
const prefixOf = (service: OpenService): string => prefixes.get(service) ?? ''

const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)] as T
const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number

async function tokenOf(service: OpenService, base: string, password: string): Promise<string> {
  const reply = await service.app.inject({
    method: 'POST',
    url: `${base}/auth/login`,
    payload: { username: 'admin', password },
  })
  return (reply.json() as { data: { token: string } }).data.token
}

/** Requests per second over `ms` of back-to-back injected GETs. */
async function rate(service: OpenService, token: string, path: () => string, ms: number): Promise<number> {
  const base = prefixOf(service)
  const headers = { authorization: `Bearer ${token}` }
  const until = performance.now() + ms
  let done = 0
  const start = performance.now()
  while (performance.now() < until) {
    const reply = await service.app.inject({ method: 'GET', url: `${base}${path()}`, headers })
    if (reply.statusCode !== 200) throw new Error(`${path()}: ${reply.statusCode} ${reply.body}`)
    done += 1
  }
  return done / ((performance.now() - start) / 1000)
}

async function auditTail(service: OpenService): Promise<number> {
  const { rows } = await sql<{ seq: unknown }>`select max(seq) as seq from _audit`.execute(service.database.db)
  return Number(rows[0]?.seq ?? 0)
}

async function rowsAfter(service: OpenService, seq: number): Promise<{ rows: number; bytes: number }> {
  const { rows } = await sql<Record<string, unknown>>`select * from _audit where seq > ${seq}`.execute(
    service.database.db,
  )
  const bytes = rows.reduce(
    (sum, row) => sum + Object.values(row).reduce<number>((n, v) => n + (v === null ? 0 : String(v).length), 0),
    0,
  )
  return { rows: rows.length, bytes }
}

export async function measureConsultationCost(
  settings: Settings,
  password: string,
  size: number,
  year: number,
  rounds: number,
): Promise<ConsultationCost> {
  const randomId = () => `DEN-${year}-${String(1 + Math.floor(Math.random() * size)).padStart(5, '0')}`
  const offset = () => Math.floor(Math.random() * Math.max(1, Math.min(size, 10_000) - 100))
  const paths = [
    { name: 'S1', path: () => `/denuncias/${randomId()}` },
    { name: 'S2', path: () => `/denuncias?limit=100&offset=${offset()}` },
    { name: 'S3', path: () => `/denuncias?estado=${pick(ESTADOS)}&prioridad=${pick(PRIORIDADES)}&limit=100` },
  ]
  const base = settings.basePath === '/' ? '' : settings.basePath
  const opened = async (options: { consultationLog?: boolean } = {}) => {
    const service = await openService(settings, { logger: false, ...options })
    prefixes.set(service, base)
    return service
  }
  const on = await opened()
  const off = await opened({ consultationLog: false })
  try {
    const tokens = { on: await tokenOf(on, base, password), off: await tokenOf(off, base, password) }
    const scenarios = []
    for (const { name, path } of paths) {
      const onRuns: number[] = []
      const offRuns: number[] = []
      for (let round = 0; round < Math.max(2, rounds); round++) {
        // Alternating who goes first, as the HTTP scenarios do.
        const first = round % 2 === 0
        if (first) onRuns.push(await rate(on, tokens.on, path, 1500))
        offRuns.push(await rate(off, tokens.off, path, 1500))
        if (!first) onRuns.push(await rate(on, tokens.on, path, 1500))
      }
      scenarios.push({ name, onRps: median(onRuns), offRps: median(offRuns) })
    }
    await on.close() // writes the pending entries
    const perList = []
    for (const limit of [100, 1000]) {
      const service = await opened()
      const token = await tokenOf(service, base, password)
      const before = await auditTail(service)
      const count = 20
      for (let i = 0; i < count; i++)
        await service.app.inject({
          method: 'GET',
          url: `${prefixOf(service)}/denuncias?limit=${limit}&offset=${offset()}`,
          headers: { authorization: `Bearer ${token}` },
        })
      await service.close()
      const written = await rowsAfter(off, before)
      perList.push({ limit, rows: written.rows / count, bytes: Math.round(written.bytes / count) })
    }
    return { scenarios, perList }
  } finally {
    await on.close().catch(() => undefined)
    await off.close()
  }
}

export function printConsultationCost(costs: readonly { records: number; cost: ConsultationCost }[]): void {
  const lines = ['', 'Consultation log: in process, same database, on vs off']
  for (const { records, cost } of costs) {
    lines.push(`  ${records.toLocaleString('en')} records`)
    for (const s of cost.scenarios)
      lines.push(
        `    ${s.name}: on ${s.onRps.toFixed(0)} req/s, off ${s.offRps.toFixed(0)} req/s, ratio ${(s.onRps / s.offRps).toFixed(2)}x`,
      )
    for (const l of cost.perList)
      lines.push(
        `    list limit=${l.limit}: ${l.rows.toFixed(2)} audit rows, ${l.bytes.toLocaleString('en')} bytes per request`,
      )
  }
  process.stdout.write(`${lines.join('\n')}\n`)
}
