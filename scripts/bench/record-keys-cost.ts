// The cost of per-record data keys (D41), in one run: two installations seeded alike, one with
// record keys (the service as shipped) and one without (the engine's bench-only
// `recordKeys: false`: values under the service key, as before D41), then S1 (GET by id), S2 (GET
// list limit=100) and S4 (POST create) driven alternately on both in process through app.inject.
// A fresh service process holds no data key: the first read of each record loads its key (one query
// per page). So each read scenario starts with a cold pass, every record read once in order (S1 one
// GET each, S2 every page), and S4 with one cold round; that first figure is reported apart, out of
// the median. The rounds after it are a running service's, its keys held.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { openService, type OpenService } from '../../src/app/service.js'
import { loadSettings } from '../../src/app/settings.js'
import { openBenchDatabase, type DatabaseKind } from './database.js'
import { creatableDenuncia, seedDenuncias } from './seed.js'

export interface RecordKeysCost {
  readonly records: number
  readonly scenarios: readonly {
    readonly name: string
    readonly onRps: number
    readonly offRps: number
    /** The median of the rounds' on/off ratios: each round's two sides ran back to back, under one load. */
    readonly ratio: number
    /** Every round's on/off ratio, in order. */
    readonly ratios: readonly number[]
    /**
     * The cold pass's on/off ratio (S4: the first round's), not in the median: a fresh process
     * holds no data key, so each first read of a record also loads its key.
     */
    readonly coldRatio: number
  }[]
}

export interface RecordKeysCostOptions {
  readonly kind: DatabaseKind
  readonly adminUrl: string
  readonly root: string
  readonly password: string
  readonly size: number
  readonly rounds: number
  /** Each window, in ms. */
  readonly windowMs: number
  readonly log: (line: string) => void
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number

interface Side {
  readonly service: OpenService
  readonly token: string
  readonly year: number
  /** The API's prefix (BASE_PATH), '' when served at the root. */
  readonly base: string
  close(): Promise<void>
}

async function openSide(options: RecordKeysCostOptions, recordKeys: boolean): Promise<Side> {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-bench-keys-'))
  const database = await openBenchDatabase(options.kind, dataDir, options.adminUrl)
  const env = {
    ...database.serviceEnv,
    DATA_DIR: dataDir,
    ADMIN_PASSWORD: options.password,
    MODULES_FILE: join(options.root, 'modules.yaml'),
    RATE_LIMIT_IP_PER_MINUTE: '1000000000',
    RATE_LIMIT_TOKEN_PER_HOUR: '1000000000',
    LOG_LEVEL: 'error',
  }
  const settings = loadSettings(env, dataDir)
  const seeding = await openService(settings, { logger: false, recordKeys })
  const spec = seeding.spec.moduleByName.get('denuncias')
  if (spec === undefined) throw new Error('modules.yaml has no denuncias module')
  const year = await seedDenuncias(seeding, spec, options.size, 'bench-seed')
  await seeding.close()
  await database.settle()
  const service = await openService(settings, { logger: false, recordKeys, consultationLog: false })
  const base = settings.basePath === '/' ? '' : settings.basePath
  const login = await service.app.inject({
    method: 'POST',
    url: `${base}/auth/login`,
    payload: { username: 'admin', password: options.password },
  })
  const token = (login.json() as { data: { token: string } }).data.token
  return {
    service,
    token,
    year,
    base,
    async close() {
      await service.close()
      await database.drop()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

type Request = { method: 'GET' | 'POST'; url: string; payload?: Record<string, unknown> }

/** Requests per second of `requests` sent back to back, each once. */
async function passRate(side: Side, requests: readonly Request[]): Promise<number> {
  let next = 0
  const start = performance.now()
  await rate(side, () => requests[next++] as Request, Number.POSITIVE_INFINITY, requests.length)
  return requests.length / ((performance.now() - start) / 1000)
}

/** Requests per second over `ms` of back-to-back injected requests (or `count` of them). */
async function rate(side: Side, request: () => Request, ms: number, count = Number.POSITIVE_INFINITY): Promise<number> {
  const headers = { authorization: `Bearer ${side.token}` }
  // Each window starts from a collected heap (npm run bench passes --expose-gc): the two services
  // share this process, and a collection of one's garbage would otherwise land in the other's window.
  ;(globalThis as { gc?: () => void }).gc?.()
  const until = performance.now() + ms
  const start = performance.now()
  let done = 0
  while (performance.now() < until && done < count) {
    const { method, url, payload } = request()
    const reply = await side.service.app.inject({
      method,
      url: `${side.base}${url}`,
      headers,
      ...(payload === undefined ? {} : { payload }),
    })
    if (reply.statusCode >= 300) throw new Error(`${method} ${url}: ${reply.statusCode} ${reply.body}`)
    done += 1
  }
  return done / ((performance.now() - start) / 1000)
}

export async function measureRecordKeysCost(options: RecordKeysCostOptions): Promise<RecordKeysCost> {
  const { size } = options
  options.log(`record keys: seeding two installations of ${size} denuncias (on, off)`)
  const on = await openSide(options, true)
  try {
    const off = await openSide(options, false)
    try {
      let created = 0
      const id = (side: Side) => `DEN-${side.year}-${String(1 + Math.floor(Math.random() * size)).padStart(5, '0')}`
      const offset = () => Math.floor(Math.random() * Math.max(1, Math.min(size, 10_000) - 100))
      const pages = Math.ceil(Math.min(size, 10_000) / 100)
      const scenarios: {
        name: string
        request: (side: Side) => () => Request
        /** The cold pass: every record read once, as a fresh process first reads them (its keys loaded). */
        pass?: (side: Side) => Request[]
      }[] = [
        {
          name: 'S1',
          request: (side: Side) => () => ({ method: 'GET' as const, url: `/denuncias/${id(side)}` }),
          pass: (side: Side) =>
            Array.from({ length: size }, (_, i) => ({
              method: 'GET' as const,
              url: `/denuncias/DEN-${side.year}-${String(i + 1).padStart(5, '0')}`,
            })),
        },
        {
          name: 'S2',
          request: () => () => ({ method: 'GET' as const, url: `/denuncias?limit=100&offset=${offset()}` }),
          pass: () =>
            Array.from({ length: pages }, (_, i) => ({
              method: 'GET' as const,
              url: `/denuncias?limit=100&offset=${i * 100}`,
            })),
        },
        {
          name: 'S4',
          request: () => () => ({
            method: 'POST' as const,
            url: '/denuncias',
            payload: creatableDenuncia(size + ++created),
          }),
        },
      ]
      const results = []
      for (const scenario of scenarios) {
        const onRuns: number[] = []
        const offRuns: number[] = []
        // Cold first: a pass over every record where there is one (reads), else one round (creates);
        // then the rounds of the median, a running service's.
        const { pass } = scenario
        if (pass !== undefined) {
          onRuns.push(await passRate(on, pass(on)))
          offRuns.push(await passRate(off, pass(off)))
        }
        for (let round = pass === undefined ? 0 : 1; round < 1 + Math.max(2, options.rounds); round++) {
          // Alternating who goes first, as the HTTP scenarios do.
          const first = round % 2 === 0
          if (first) onRuns.push(await rate(on, scenario.request(on), options.windowMs))
          offRuns.push(await rate(off, scenario.request(off), options.windowMs))
          if (!first) onRuns.push(await rate(on, scenario.request(on), options.windowMs))
        }
        // Paired by round: a load that comes and goes (a shared machine) moves both sides of a round.
        const [coldRatio, ...ratios] = onRuns.map((on, i) => on / (offRuns[i] as number)) as [number, ...number[]]
        const [onRps, offRps] = [median(onRuns.slice(1)), median(offRuns.slice(1))]
        results.push({ name: scenario.name, onRps, offRps, ratio: median(ratios), ratios, coldRatio })
        options.log(
          `record keys ${scenario.name}: on ${onRps.toFixed(0)} req/s, off ${offRps.toFixed(0)} req/s, cold pass ${coldRatio.toFixed(2)}, rounds on/off ${ratios.map((r) => r.toFixed(2)).join(' ')}`,
        )
      }
      return { records: size, scenarios: results }
    } finally {
      await off.close()
    }
  } finally {
    await on.close()
  }
}

export function printRecordKeysCost(cost: RecordKeysCost, label: string): void {
  const lines = [
    '',
    `Per-record data keys (D41): in process, ${label}, ${cost.records.toLocaleString('en')} records, on vs off`,
  ]
  for (const s of cost.scenarios)
    lines.push(
      `  ${s.name}: on ${s.onRps.toFixed(0)} req/s, off ${s.offRps.toFixed(0)} req/s, on/off ${s.ratio.toFixed(3)} (cost ${((1 - s.ratio) * 100).toFixed(1)}%, median of ${s.ratios.length} paired rounds; cold pass ${s.coldRatio.toFixed(2)})`,
    )
  process.stdout.write(`${lines.join('\n')}\n`)
}
