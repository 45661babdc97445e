// npm run bench: the service against the bare stack and against the peer a user
// would pick instead (Platformatic DB, installed into a cache outside the repository), side by
// side in one run.
// bench/options.ts lists the options (USAGE); docs/performance.md says what is measured and how.
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { loadavg, tmpdir } from 'node:os'
import { execFileSync } from 'node:child_process'
import { join, resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { SERVICE_NODE_FLAGS } from '../src/node-flags.js'
import { openService } from '../src/app/service.js'
import { loadSettings } from '../src/app/settings.js'
import { POOL_SIZE, openBenchDatabase, type BenchDatabase } from './bench/database.js'
import { formatDurability, type Durability } from './bench/durability.js'
import { measureListCost, type ListCost } from './bench/list-cost.js'
import { measureConsultationCost, printConsultationCost, type ConsultationCost } from './bench/consultation-cost.js'
import { measureLoad, type LoadFigures, type LoadRequest } from './bench/load.js'
import { formatLiveFeed, measureLiveFeed } from './bench/live-feed.js'
import { measureNpmStart } from './bench/npm-start.js'
import {
  installPlatformatic,
  platformaticRequests,
  preparePlatformatic,
  peerBody,
  readPeerSettings,
  seedPlatformaticBulk,
} from './bench/platformatic.js'
import { startServiceGroup, type ServiceGroup } from './bench/instances.js'
import { benchArgs, USAGE } from './bench/options.js'
import { EMPTY_TALLY, mergeTallies, startLockWaitSampler, type LockWaitTally } from './bench/lock-waits.js'
import { startChild, type Child } from './bench/processes.js'
import {
  cpuRatioOf,
  median,
  ratioOf,
  runRounds,
  serviceTargetName,
  type Scenario,
  type Target,
  type WindowFor,
} from './bench/rounds.js'
import {
  AGENTS,
  ESTADOS,
  PRIORIDADES,
  agentId,
  creatableDenuncia,
  denunciaValues,
  PLAIN_FIELDS,
  randomPageOffset,
  seedDenuncias,
} from './bench/seed.js'
import { seedThroughApi } from './bench/seed-api.js'
import { measureRecordKeysCost, printRecordKeysCost } from './bench/record-keys-cost.js'
import { serviceDurability } from './bench/service-settings.js'
import { measureStartup } from './bench/startup.js'
import { formatUploadMemory, measureUploadMemory, type UploadMemoryFigures } from './bench/upload-memory.js'
import { formatConsole, measureConsole } from './bench/console-first-screen.js'
import {
  printReport,
  type GroupReport,
  type ScopedReport,
  type SizeReport,
  type ScenarioReport,
} from './bench/report.js'

/** A wrong option ends the run with its reason and the usage, never a stack (status 2). */
function usageFailed(reason: string): never {
  process.stderr.write(`bench: ${reason}\n\n${USAGE}\n`)
  process.exit(2)
}

const options = (() => {
  try {
    return benchArgs(process.argv.slice(2))
  } catch (error) {
    return usageFailed(error instanceof Error ? error.message : String(error))
  }
})()
if (options.args.help) {
  process.stdout.write(`${USAGE}\n`)
  process.exit(0)
}
const { args, databaseKind, adminUrl, instanceCounts, seedMode, uploadMiB } = options
/** Scenarios whose service windows are sampled for lock waits, on PostgreSQL. */
const LOCK_SAMPLED = new Set(['S4'])
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

function scenarios(size: number, year: number): Scenario[] {
  const n = () => 1 + Math.floor(Math.random() * size)
  const randomId = () => `DEN-${year}-${String(n()).padStart(5, '0')}`
  const offset = () => randomPageOffset(size)
  // Seeded through the API, every denuncia is pendiente (the state creates take).
  const filter = () => ({ estado: seedMode === 'api' ? 'pendiente' : pick(ESTADOS), prioridad: pick(PRIORIDADES) })
  const filters = () => {
    const f = filter()
    return `estado=${f.estado}&prioridad=${f.prioridad}&limit=100`
  }
  let created = 0
  const values = () => creatableDenuncia(size + ++created)
  const body = () => JSON.stringify(values())
  const login = () => JSON.stringify({ username: 'admin', password: PASSWORD })
  const all: Scenario[] = [
    {
      name: 'S1',
      title: 'GET one by id',
      authenticated: true,
      requests: {
        service: { method: 'GET', path: () => `/api/denuncias/${randomId()}` },
        bare: { method: 'GET', path: () => `/bare/denuncias/${randomId()}` },
        same: { method: 'GET', path: () => `/bare/same/denuncias/${randomId()}` },
        platformatic: platformaticRequests.get(n),
      },
    },
    {
      name: 'S2',
      title: 'GET list limit=100',
      authenticated: true,
      requests: {
        service: { method: 'GET', path: () => `/api/denuncias?limit=100&offset=${offset()}` },
        bare: { method: 'GET', path: () => `/bare/denuncias?limit=100&offset=${offset()}` },
        platformatic: platformaticRequests.list(offset),
      },
    },
    // A page of the fields a list screen shows, none encrypted: nothing to decrypt.
    {
      name: 'S2f',
      title: 'GET list limit=100 fields=',
      authenticated: true,
      requests: {
        service: {
          method: 'GET',
          path: () => `/api/denuncias?limit=100&offset=${offset()}&fields=${PLAIN_FIELDS.join(',')}`,
        },
        same: {
          method: 'GET',
          path: () => `/bare/same/denuncias?limit=100&offset=${offset()}&fields=${PLAIN_FIELDS.join(',')}`,
        },
        platformatic: platformaticRequests.listFields(offset, PLAIN_FIELDS),
      },
    },
    {
      name: 'S3',
      title: 'GET list estado+prioridad',
      authenticated: true,
      requests: {
        service: { method: 'GET', path: () => `/api/denuncias?${filters()}` },
        bare: { method: 'GET', path: () => `/bare/denuncias?${filters()}` },
        platformatic: platformaticRequests.filtered(filter),
      },
    },
    // After the lists: creates meet the indexes and the audit chain the lists left warm, as in use.
    {
      name: 'S4',
      title: 'POST create',
      authenticated: true,
      requests: {
        service: { method: 'POST', path: () => '/api/denuncias', body },
        bare: { method: 'POST', path: () => '/bare/denuncias', body },
        platformatic: platformaticRequests.create(values),
      },
    },
    {
      name: 'S5',
      title: 'POST login',
      authenticated: false,
      requests: {
        service: { method: 'POST', path: () => '/api/auth/login', body: login },
        bare: { method: 'POST', path: () => '/bare/auth/login', body: login },
      },
    },
  ]
  return all.filter((s) => wanted.has(s.name))
}

const login = async (port: number): Promise<string> => {
  const response = await fetch(`http://127.0.0.1:${port}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: PASSWORD }),
  })
  return ((await response.json()) as { data: { token: string } }).data.token
}

/** The peer, started and seeded like the service; undefined (with the reason logged) when it cannot be had. */
async function startPeer(
  size: number,
  dataDir: string,
  jwtSecret: string,
): Promise<
  | {
      child: Child
      token: string
      drop: () => Promise<void>
      seedSeconds: number
      settings: () => Promise<Durability>
    }
  | undefined
> {
  if (args['no-peer'] === true) return undefined
  const installed = installPlatformatic(log)
  if ('reason' in installed) {
    log(`Platformatic DB left out of this run: ${installed.reason}`)
    return undefined
  }
  const peerDatabase = databaseKind === 'postgres' ? await openBenchDatabase('postgres', dataDir, adminUrl) : undefined
  const peer = preparePlatformatic(
    installed.script,
    join(dataDir, 'platformatic'),
    jwtSecret,
    peerDatabase?.serviceEnv['DATABASE_URL'],
  )
  let child: Child | undefined
  try {
    child = await startChild(peer.script, { ...peer.env }, peer.readyPath, [], { args: peer.args, cwd: peer.cwd })
    log(
      `Platformatic DB healthy in ${child.startupMs.toFixed(0)} ms; at start ${formatDurability(await readPeerSettings(peer, child.port))}`,
    )
    const seedStart = performance.now()
    if (seedMode === 'api')
      await seedThroughApi(
        { port: child.port, path: '/denuncias/', token: peer.token, body: peerBody },
        size,
        creatableDenuncia,
      )
    else await seedPlatformaticBulk(peer, size, denunciaValues)
    const seedSeconds = (performance.now() - seedStart) / 1000
    log(`Platformatic DB: ${size.toLocaleString('en')} denuncias seeded (${seedMode}) in ${seedSeconds.toFixed(1)} s`)
    const port = child.port
    return {
      child,
      token: peer.token,
      seedSeconds,
      drop: async () => void (await peerDatabase?.drop()),
      settings: () => readPeerSettings(peer, port),
    }
  } catch (error) {
    log(`Platformatic DB left out of this run: ${error instanceof Error ? error.message : String(error)}`)
    await child?.stop()
    await peerDatabase?.drop()
    return undefined
  }
}

/**
 * S6: the same list page (limit=100, the same offsets) read by an agente, whose
 * scope (`agente_asignado` is their personal_id or they created it) holds 1/AGENTS of the
 * seeded denuncias, and by superadmin (no scope), on the same service, interleaved like the
 * other scenarios. Cost ratio: unscoped req/s / scoped req/s (target <= 1.1x).
 */
async function measureScoped(service: ServiceGroup, size: number, adminToken: string): Promise<ScopedReport> {
  const base = `http://127.0.0.1:${service.port}/api`
  const username = 'agente_bench'
  const password = 'bench-password-agente'
  const created = await fetch(`${base}/usuarios`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
    body: JSON.stringify({ username, password, nombre: 'Agente bench', rol: 'agente', personal_id: agentId(1) }),
  })
  if (created.status !== 201) throw new Error(`agente not created: ${created.status} ${await created.text()}`)
  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  })
  const agenteToken = ((await login.json()) as { data: { token: string } }).data.token
  // Offsets within the agente's records, the same for both: equal pages, equal skipped rows.
  const inScope = Math.floor(size / AGENTS)
  const offset = () => randomPageOffset(inScope)
  const request: LoadRequest = { method: 'GET', path: () => `/api/denuncias?limit=100&offset=${offset()}` }
  const runs: { scoped: LoadFigures; unscoped: LoadFigures }[] = []
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? (['scoped', 'unscoped'] as const) : (['unscoped', 'scoped'] as const)
    const figures: Partial<Record<'scoped' | 'unscoped', LoadFigures>> = {}
    for (const who of order)
      figures[who] = await measureLoad(service.ports, () => service.cpuSeconds(), request, {
        ...load,
        token: who === 'scoped' ? agenteToken : adminToken,
      })
    runs.push(figures as { scoped: LoadFigures; unscoped: LoadFigures })
    log(
      `S6 round ${round + 1}: agente (scoped) ${figures.scoped?.rps.toFixed(0)} req/s, superadmin ${figures.unscoped?.rps.toFixed(0)} req/s`,
    )
  }
  return {
    inScope,
    rounds: runs,
    costRatio: median(runs.map((r) => (r.scoped.rps === 0 ? Number.POSITIVE_INFINITY : r.unscoped.rps / r.scoped.rps))),
    cpuRatio: median(
      runs.map((r) =>
        r.scoped.cpuUsPerRequest === undefined || r.unscoped.cpuUsPerRequest === undefined
          ? Number.NaN
          : r.scoped.cpuUsPerRequest / r.unscoped.cpuUsPerRequest,
      ),
    ),
  }
}

/** The environment of every service process of a run on `database`. */
const serviceEnv = (database: BenchDatabase, dataDir: string): Record<string, string> => ({
  ...database.serviceEnv,
  DATA_DIR: dataDir,
  ADMIN_PASSWORD: PASSWORD,
  MODULES_FILE: join(root, 'modules.yaml'),
  RATE_LIMIT_IP_PER_MINUTE: '1000000000',
  RATE_LIMIT_TOKEN_PER_HOUR: '1000000000',
  LOG_LEVEL: 'error',
})

/** The evidence file extra (D43) on `env`'s database; undefined with --upload-mb 0. */
const uploadMemoryOn = async (env: Record<string, string>): Promise<UploadMemoryFigures | undefined> =>
  uploadMiB === 0 ? undefined : measureUploadMemory({ env, root, password: PASSWORD, mib: uploadMiB, log })

/** A fresh database with its first account and the agents a denuncia is assigned to, then `measure` on it. */
async function onSeededDatabase<T>(
  measure: (env: Record<string, string>) => Promise<T>,
): Promise<{ label: string; figures: T }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-bench-'))
  try {
    const database = await openBenchDatabase(databaseKind, dataDir, adminUrl)
    try {
      log(`database: ${database.label}`)
      const env = serviceEnv(database, dataDir)
      const seeding = await openService(loadSettings(env, dataDir))
      const spec = seeding.spec.moduleByName.get('denuncias')
      if (spec === undefined) throw new Error('modules.yaml has no denuncias module')
      await seedDenuncias(seeding, spec, 0, 'bench-seed')
      await seeding.close()
      return { label: database.label, figures: await measure(env) }
    } finally {
      await database.drop()
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/** --console-only: the console's size and first screen (D44) on a fresh database. */
async function runConsoleOnly(): Promise<void> {
  const { label, figures } = await onSeededDatabase((env) =>
    measureConsole({ env, root, password: PASSWORD, rounds, log }),
  )
  if (args.json === true) console.log(JSON.stringify({ database: label, console: figures }, null, 2))
  else console.log(`\n== ${label}, console\n${formatConsole(figures)}`)
}

/** --upload-only: a fresh database with its first account, and the evidence file extra alone. */
async function runUploadOnly(): Promise<void> {
  const { label, figures } = await onSeededDatabase(uploadMemoryOn)
  if (args.json === true) console.log(JSON.stringify({ database: label, uploadMemory: figures }, null, 2))
  else if (figures !== undefined)
    console.log(`
== ${label}
${formatUploadMemory(figures)}`)
}

async function runSize(size: number): Promise<SizeReport> {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-bench-'))
  const database = await openBenchDatabase(databaseKind, dataDir, adminUrl).catch((error: unknown) => {
    rmSync(dataDir, { recursive: true, force: true })
    throw error
  })
  log(`database: ${database.label}`)
  const env = serviceEnv(database, dataDir)
  let peer: Awaited<ReturnType<typeof startPeer>>
  try {
    const settings = loadSettings(env, dataDir)
    // The schema, the first account and (bulk) the records, in process, before any server starts.
    const seeding = await openService(settings)
    const spec = seeding.spec.moduleByName.get('denuncias')
    if (spec === undefined) throw new Error('modules.yaml has no denuncias module')
    let seedStart = performance.now()
    const year = await seedDenuncias(seeding, spec, seedMode === 'bulk' ? size : 0, 'bench-seed', (done) => {
      if (done % 100_000 === 0) log(`  seeded ${done.toLocaleString('en')}`)
    })
    let seedSeconds = (performance.now() - seedStart) / 1000
    // D45: what the service's connections run with, read on a handle opened as its processes open theirs.
    const serviceSettings = await serviceDurability(seeding.database, POOL_SIZE)
    await seeding.close()
    // The seed's writes reach the disk now, not during the service's first commit at startup.
    await database.settle()

    const profileDir = join(root, 'test-artifacts', 'profiles')
    if (args.profile) mkdirSync(profileDir, { recursive: true })
    // One group of service processes per --instances count, all on the seeded database.
    const groups: ServiceGroup[] = []
    try {
      for (const count of instanceCounts)
        groups.push(
          await startServiceGroup(
            count,
            join(root, 'dist/src/app/server.js'),
            env,
            {
              jwtSecret: settings.jwtSecret,
              encryptionKey: (settings.encryptionKeys[0] as Buffer).toString('base64'),
            },
            [...SERVICE_NODE_FLAGS, ...(args.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])],
          ),
        )
    } catch (error) {
      await Promise.all(groups.map((g) => g.stop()))
      throw error
    }
    const service = groups[0] as ServiceGroup
    const token = await login(service.port)
    if (seedMode === 'api') {
      seedStart = performance.now()
      await seedThroughApi(
        { port: service.port, path: '/api/denuncias', token, body: (v) => v },
        size,
        creatableDenuncia,
        10,
        (done) => log(`  seeded ${done.toLocaleString('en')} through the API`),
      )
      seedSeconds = (performance.now() - seedStart) / 1000
      await database.settle()
    }
    log(`${size.toLocaleString('en')} denuncias seeded (${seedMode}) in ${seedSeconds.toFixed(1)} s`)
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
    peer = await startPeer(size, dataDir, settings.jwtSecret)
    const serviceTargets: Target[] = groups.map((group, i) => ({
      name: serviceTargetName(group.instances, i === 0),
      sends: 'service',
      ports: group.ports,
      token,
      cpuSeconds: () => group.cpuSeconds(),
    }))
    const targets: Target[] = [
      ...serviceTargets,
      { name: 'bare', ports: [bare.port], token, cpuSeconds: () => bare.cpuSeconds() },
      // The same process as `bare`: its same-work routes, where a scenario names them (S1, S2f).
      { name: 'same', ports: [bare.port], token, cpuSeconds: () => bare.cpuSeconds() },
      ...(peer === undefined
        ? []
        : [
            {
              name: 'platformatic' as const,
              ports: [peer.child.port],
              token: peer.token,
              cpuSeconds: () => peer?.child.cpuSeconds(),
            },
          ]),
    ]

    // Lock waits during each service target's measured S4 windows, pooled over rounds.
    const lockWaits = new Map<string, LockWaitTally>()
    const databaseUrl = database.serviceEnv['DATABASE_URL']
    const windowFor: WindowFor = (scenario, target) => {
      if (databaseUrl === undefined || !LOCK_SAMPLED.has(scenario.name) || target.sends !== 'service') return undefined
      let sampler: Awaited<ReturnType<typeof startLockWaitSampler>> | undefined
      const key = `${scenario.name}/${target.name}`
      return {
        opened: async () => void (sampler = await startLockWaitSampler(databaseUrl)),
        closed: async () =>
          void lockWaits.set(
            key,
            mergeTallies(lockWaits.get(key) ?? EMPTY_TALLY, (await sampler?.stop()) ?? EMPTY_TALLY),
          ),
      }
    }
    const results: ScenarioReport[] = []
    let groupPeaks: (number | undefined)[] = []
    let peakRssMiB: number | undefined
    let scoped: ScopedReport | undefined
    let peerPeakRssMiB: number | undefined
    // D45: as the bare stack's and the peer's own connections answer after the run (a replaced connection would show).
    const durability: Record<string, Durability | undefined> = { service: serviceSettings }
    try {
      for (const scenario of scenarios(size, year)) {
        const runs = await runRounds(scenario, targets, rounds, load, log, windowFor)
        results.push({
          instanceRatios: serviceTargets.slice(1).map((t, i) => ({
            instances: instanceCounts[i + 1] as number,
            ratio: ratioOf(runs, t.name, 'service'),
            // cpuRatioOf(runs, of, to) is to's CPU µs per request / of's: here N instances' / the first count's.
            cpuRatio: cpuRatioOf(runs, 'service', t.name),
          })),
          name: scenario.name,
          title: scenario.title,
          rounds: runs,
          ratio: ratioOf(runs, 'service', 'bare'),
          cpuRatio: cpuRatioOf(runs, 'service', 'bare'),
          peerRatio: ratioOf(runs, 'service', 'platformatic'),
          peerCpuRatio: cpuRatioOf(runs, 'service', 'platformatic'),
          ...(runs.some((r) => r['same'] !== undefined)
            ? {
                sameWork: { peerRatio: ratioOf(runs, 'same', 'platformatic'), ratio: ratioOf(runs, 'service', 'same') },
              }
            : {}),
        })
      }
      if (wanted.has('S6')) scoped = await measureScoped(service, size, token)
      durability['bare'] = await readSettings('bare stack', async () => {
        const response = await fetch(`http://127.0.0.1:${bare.port}/bare/settings`)
        if (response.status !== 200) throw new Error(`/bare/settings: ${response.status}`)
        return (await response.json()) as Durability
      })
      if (peer !== undefined) durability['platformatic'] = await readSettings('Platformatic DB', peer.settings)
    } finally {
      groupPeaks = groups.map((g) => g.peakRssMiB())
      peakRssMiB = groupPeaks[0]
      peerPeakRssMiB = peer?.child.peakRssMiB()
      await Promise.all(groups.map((g) => g.stop()))
      await bare.stop()
      await peer?.child.stop()
    }

    const extras = args['no-extras'] !== true
    if (extras) log(formatLiveFeed(await measureLiveFeed({ env, root, password: PASSWORD, log })))
    const uploadMemory = extras ? await uploadMemoryOn(env) : undefined
    const inProcess = extras ? await openService(settings) : undefined
    const listCost: ListCost | undefined =
      inProcess === undefined
        ? undefined
        : await measureListCost(
            inProcess,
            spec,
            fastifySerializer(spec.schemas.responses.list),
            Math.min(size, 10_000) - 100,
          )
    await inProcess?.close()
    if (extras)
      consultationCosts.push({
        records: size,
        cost: await measureConsultationCost(settings, PASSWORD, size, year, rounds),
      })
    // `npm start` (its prestart included) to the first healthy answer, on the seeded database.
    const startup = await measureStartup(root, env, extras ? Number(args['startup-rounds']) : 0, log)
    return {
      records: size,
      database: database.label,
      databaseKind,
      seedMode,
      seedSeconds,
      startupMs: startup.medianMs,
      startupRuns: startup.runsMs,
      peakRssMiB,
      durability,
      groups: groups.map((g, i): GroupReport => ({
        instances: g.instances,
        target: serviceTargets[i]?.name ?? 'service',
        peakRssMiB: groupPeaks[i],
        lockWaits: Object.fromEntries(
          [...lockWaits].flatMap(([key, tally]) => {
            const [scenario, target] = key.split('/')
            return target === serviceTargets[i]?.name ? [[scenario, tally]] : []
          }),
        ),
      })),
      peer:
        peer === undefined
          ? undefined
          : { startupMs: peer.child.startupMs, peakRssMiB: peerPeakRssMiB, seedSeconds: peer.seedSeconds },
      listCost,
      uploadMemory,
      scenarios: results,
      ...(scoped === undefined ? {} : { scoped }),
    }
  } finally {
    await peer?.drop()
    await database.drop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/** A target's durability settings, or undefined (the report says "not read") with the reason logged. */
async function readSettings(target: string, read: () => Promise<Durability>): Promise<Durability | undefined> {
  try {
    return await read()
  } catch (error) {
    log(`${target}: settings not read: ${error instanceof Error ? error.message : String(error)}`)
    return undefined
  }
}

/** The checkout's commit (with "+" when it has changes), or "unknown" outside a git checkout. */
function commitOf(dir: string): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: dir, encoding: 'utf8' }).trim()
    const dirty = execFileSync('git', ['status', '--porcelain'], { cwd: dir, encoding: 'utf8' }).trim() !== ''
    return dirty ? `${head}+` : head
  } catch {
    return 'unknown'
  }
}

const consultationCosts: { records: number; cost: ConsultationCost }[] = []
if (args['upload-only'] === true) await runUploadOnly()
else if (args['console-only'] === true) await runConsoleOnly()
else if (args['record-keys-only'] === true) {
  // What a quoted figure needs beside it: when, at which commit, under which load.
  const loadNow = () => loadavg()[0]?.toFixed(1) ?? '?'
  const loadBefore = loadNow()
  const cost = await measureRecordKeysCost({
    kind: databaseKind,
    adminUrl,
    root,
    password: PASSWORD,
    size: sizes[0] ?? 10_000,
    rounds,
    windowMs: load.durationSeconds * 1000,
    log,
  })
  if (args.json === true) console.log(JSON.stringify({ database: databaseKind, recordKeys: cost }, null, 2))
  else
    printRecordKeysCost(
      cost,
      `${databaseKind === 'sqlite' ? 'SQLite' : 'PostgreSQL'}, ${new Date().toISOString().slice(0, 16)} UTC, commit ${commitOf(root)}, load ${loadBefore} -> ${loadNow()}`,
    )
} else {
  const reports: SizeReport[] = []
  for (const size of sizes) reports.push(await runSize(size))
  // `npm start` to healthy, as the user runs it; --start-runs 0 skips it.
  const startRuns = Number(args['start-runs'])
  const npmStart =
    startRuns > 0
      ? await measureNpmStart(root, { ADMIN_PASSWORD: PASSWORD, MODULES_FILE: join(root, 'modules.yaml') }, startRuns)
      : undefined
  printReport(reports, { json: args.json === true, rounds, ...load }, npmStart)
  if (args.json !== true && consultationCosts.length > 0) printConsultationCost(consultationCosts)
}
