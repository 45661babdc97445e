// npm run bench (issue #7): the service against the bare stack, side by side in one run.
//   npm run bench                                  10,000 denuncias, 3 rounds of 5 s per scenario
//   npm run bench -- --records 10000,1000000       the same at each size, plus growth ratios
//   npm run bench -- --duration 10 --rounds 5 --json --profile
//   npm run bench -- --database postgres           the same on a fresh PostgreSQL database
//   npm run bench -- --database-url postgres://postgres@127.0.0.1:5432/test   (its admin URL)
// See docs/performance.md for what is measured and how.
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { SERVICE_NODE_FLAGS } from '../src/node-flags.js'
import { openService } from '../src/app/service.js'
import { loadSettings } from '../src/app/settings.js'
import { DEFAULT_ADMIN_URL, openBenchDatabase, type DatabaseKind } from './bench/database.js'
import { measureListCost, type ListCost } from './bench/list-cost.js'
import { measureConsultationCost, printConsultationCost, type ConsultationCost } from './bench/consultation-cost.js'
import { measureLoad, type LoadFigures, type LoadRequest } from './bench/load.js'
import { startChild } from './bench/processes.js'
import { ESTADOS, PRIORIDADES, denunciaValues, seedDenuncias } from './bench/seed.js'
import { printReport, type SizeReport, type ScenarioReport } from './bench/report.js'

const { values: args } = parseArgs({
  options: {
    records: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    connections: { type: 'string', default: '10' },
    scenarios: { type: 'string', default: 'S1,S2,S3,S4,S5' },
    json: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    database: { type: 'string' },
    'database-url': { type: 'string' },
  },
})
// --database-url alone means PostgreSQL; it is the admin URL the bench creates its database from.
const databaseKind = (args.database ?? (args['database-url'] === undefined ? 'sqlite' : 'postgres')) as DatabaseKind
if (databaseKind !== 'sqlite' && databaseKind !== 'postgres')
  throw new Error(`--database must be sqlite or postgres, not ${String(args.database)}`)
const adminUrl = args['database-url'] ?? DEFAULT_ADMIN_URL
const sizes = String(args.records)
  .split(',')
  .map((s) => Number(s.replace(/_/g, '')))
const rounds = Number(args.rounds)
const load = {
  connections: Number(args.connections),
  durationSeconds: Number(args.duration),
  warmupSeconds: Number(args.warmup),
}
const wanted = new Set(String(args.scenarios).split(','))
const PASSWORD = 'bench-password-1'
const root = resolve(import.meta.dirname, '../..')
const log = (line: string) => void process.stderr.write(`${line}\n`)
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)] as T
/** The serializer Fastify compiles from a response schema (its own fast-json-stringify). */
const fastifySerializer = (schema: object): ((payload: unknown) => string) =>
  (
    createRequire(createRequire(import.meta.url).resolve('fastify'))('fast-json-stringify') as (
      s: object,
    ) => (p: unknown) => string
  )(schema)
const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number

interface Scenario {
  readonly name: string
  readonly title: string
  readonly authenticated: boolean
  readonly service: LoadRequest
  readonly bare: LoadRequest
}

function scenarios(size: number, year: number): Scenario[] {
  const randomId = () => `DEN-${year}-${String(1 + Math.floor(Math.random() * size)).padStart(5, '0')}`
  // Small offsets: the same range at every size, so growth compares like with like (D11 lists).
  const offset = () => Math.floor(Math.random() * Math.max(1, Math.min(size, 10_000) - 100))
  const filters = () => `estado=${pick(ESTADOS)}&prioridad=${pick(PRIORIDADES)}&limit=100`
  let created = 0
  const body = () => JSON.stringify(denunciaValues(size + ++created))
  const login = () => JSON.stringify({ username: 'admin', password: PASSWORD })
  return [
    {
      name: 'S1',
      title: 'GET one by id',
      authenticated: true,
      service: { method: 'GET', path: () => `/api/denuncias/${randomId()}` },
      bare: { method: 'GET', path: () => `/bare/denuncias/${randomId()}` },
    },
    {
      name: 'S2',
      title: 'GET list limit=100',
      authenticated: true,
      service: { method: 'GET', path: () => `/api/denuncias?limit=100&offset=${offset()}` },
      bare: { method: 'GET', path: () => `/bare/denuncias?limit=100&offset=${offset()}` },
    },
    {
      name: 'S3',
      title: 'GET list estado+prioridad',
      authenticated: true,
      service: { method: 'GET', path: () => `/api/denuncias?${filters()}` },
      bare: { method: 'GET', path: () => `/bare/denuncias?${filters()}` },
    },
    {
      name: 'S4',
      title: 'POST create',
      authenticated: true,
      service: { method: 'POST', path: () => '/api/denuncias', body },
      bare: { method: 'POST', path: () => '/bare/denuncias', body },
    },
    {
      name: 'S5',
      title: 'POST login',
      authenticated: false,
      service: { method: 'POST', path: () => '/api/auth/login', body: login },
      bare: { method: 'POST', path: () => '/bare/auth/login', body: login },
    },
  ].filter((s) => wanted.has(s.name)) as Scenario[]
}

async function runSize(size: number): Promise<SizeReport> {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-bench-'))
  const database = await openBenchDatabase(databaseKind, dataDir, adminUrl).catch((error: unknown) => {
    rmSync(dataDir, { recursive: true, force: true })
    throw error
  })
  log(`database: ${database.label}`)
  const env = {
    ...database.serviceEnv,
    DATA_DIR: dataDir,
    ADMIN_PASSWORD: PASSWORD,
    MODULES_FILE: join(root, 'modules.yaml'),
    RATE_LIMIT_IP_PER_MINUTE: '1000000000',
    RATE_LIMIT_TOKEN_PER_HOUR: '1000000000',
    LOG_LEVEL: 'error',
  }
  try {
    const settings = loadSettings(env, dataDir)
    // Seed through the fast path, in process, before any server starts.
    const seeding = await openService(settings)
    const spec = seeding.spec.moduleByName.get('denuncias')
    if (spec === undefined) throw new Error('modules.yaml has no denuncias module')
    const seedStart = performance.now()
    const year = await seedDenuncias(seeding, spec, size, 'bench-seed', (done) => {
      if (done % 100_000 === 0) log(`  seeded ${done.toLocaleString('en')}`)
    })
    const seedSeconds = (performance.now() - seedStart) / 1000
    log(`${size.toLocaleString('en')} denuncias seeded in ${seedSeconds.toFixed(1)} s`)
    await seeding.close()
    // The seed's writes reach the disk now, not during the service's first commit at startup.
    await database.settle()

    const profileDir = join(root, 'test-artifacts', 'profiles')
    if (args.profile) mkdirSync(profileDir, { recursive: true })
    const service = await startChild(join(root, 'dist/src/app/server.js'), env, '/api/health', [
      ...SERVICE_NODE_FLAGS,
      ...(args.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
    ])
    const bare = await startChild(
      join(root, 'dist/scripts/bench/bare-server.js'),
      {
        ...database.bareEnv,
        BENCH_JWT_SECRET: settings.jwtSecret,
        BENCH_KEY: (settings.encryptionKeys[0] as Buffer).toString('base64'),
      },
      '/bare/health',
      args.profile ? ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, 'bare')}`] : [],
    )
    log(`service healthy in ${service.startupMs.toFixed(0)} ms`)
    const loginResponse = await fetch(`http://127.0.0.1:${service.port}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: PASSWORD }),
    })
    const token = ((await loginResponse.json()) as { data: { token: string } }).data.token

    const results: ScenarioReport[] = []
    let peakRssMiB: number | undefined
    try {
      for (const scenario of scenarios(size, year)) {
        const runs: { service: LoadFigures; bare: LoadFigures }[] = []
        for (let round = 0; round < rounds; round++) {
          // Interleaved, alternating who goes first: noise from other users of the machine hits both.
          const options = { ...load, token: scenario.authenticated ? token : undefined }
          const order = round % 2 === 0 ? (['service', 'bare'] as const) : (['bare', 'service'] as const)
          const figures: Partial<Record<'service' | 'bare', LoadFigures>> = {}
          for (const target of order)
            figures[target] = await measureLoad(
              (target === 'service' ? service : bare).port,
              () => (target === 'service' ? service : bare).cpuSeconds(),
              scenario[target],
              options,
            )
          runs.push(figures as { service: LoadFigures; bare: LoadFigures })
          log(
            `${scenario.name} round ${round + 1}: service ${figures.service?.rps.toFixed(0)} req/s, bare ${figures.bare?.rps.toFixed(0)} req/s`,
          )
        }
        results.push({
          name: scenario.name,
          title: scenario.title,
          rounds: runs,
          ratio: median(runs.map((r) => (r.bare.rps === 0 ? 0 : r.service.rps / r.bare.rps))),
          cpuRatio: median(
            runs.map((r) =>
              r.service.cpuUsPerRequest === undefined ||
              r.bare.cpuUsPerRequest === undefined ||
              r.service.cpuUsPerRequest === 0
                ? Number.NaN
                : r.bare.cpuUsPerRequest / r.service.cpuUsPerRequest,
            ),
          ),
        })
      }
    } finally {
      peakRssMiB = service.peakRssMiB()
      await service.stop()
      await bare.stop()
    }

    const inProcess = await openService(settings)
    const listCost: ListCost = await measureListCost(
      inProcess,
      spec,
      fastifySerializer(spec.schemas.responses.list),
      Math.min(size, 10_000) - 100,
    )
    await inProcess.close()
    consultationCosts.push({
      records: size,
      cost: await measureConsultationCost(settings, PASSWORD, size, year, rounds),
    })
    return {
      records: size,
      database: database.label,
      seedSeconds,
      startupMs: service.startupMs,
      peakRssMiB,
      listCost,
      scenarios: results,
    }
  } finally {
    await database.drop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const consultationCosts: { records: number; cost: ConsultationCost }[] = []
const reports: SizeReport[] = []
for (const size of sizes) reports.push(await runSize(size))
printReport(reports, { json: args.json === true, rounds, ...load })
if (args.json !== true) printConsultationCost(consultationCosts)
