// Where a create's time goes, statement by statement: the service in process on a
// fresh database (SQLite, or PostgreSQL with --database postgres), `--creates` POSTs through
// `app.inject` (the whole HTTP path), with the driver wrapped for this run only: every SQL
// statement counted and timed. Prints, per statement, how many a create runs and their time,
// and on PostgreSQL the share of the backends' active time spent waiting for locks.
//   npm run build && node dist/scripts/bench/create-statements.js [--creates 2000] [--concurrency 10]
//   [--database postgres] [--request get]
// `--request get` counts reads instead: `--creates` GETs of one record each, spread over the
// records the warm-up created (S1's request). `--request list` counts S2f's request: a page of 100
// of the plain fields at a random offset; `--seed 10000` first seeds that many denuncias in bulk.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import BetterSqlite3 from 'better-sqlite3'
import pg from 'pg'
import { openService } from '../../src/app/service.js'
import { loadSettings } from '../../src/app/settings.js'
import { DEFAULT_ADMIN_URL, openBenchDatabase } from './database.js'
import { ACTIVITY_QUERY, formatShares, startLockWaitSampler, topWaiting } from './lock-waits.js'
import { creatableDenuncia, PLAIN_FIELDS, randomPageOffset, seedDenuncias } from './seed.js'

const { values: args } = parseArgs({
  options: {
    creates: { type: 'string', default: '2000' },
    warmup: { type: 'string', default: '200' },
    // Creates in flight at once: on PostgreSQL, the audit lock's statement then times its wait.
    concurrency: { type: 'string', default: '1' },
    database: { type: 'string', default: 'sqlite' },
    request: { type: 'string', default: 'create' },
    seed: { type: 'string', default: '0' },
    'database-url': { type: 'string', default: DEFAULT_ADMIN_URL },
  },
})

interface Tally {
  count: number
  us: number
}
const tallies = new Map<string, Tally>()
let counting = false
const record = (text: string, us: number) => {
  if (!counting || text === ACTIVITY_QUERY) return
  const key = text.replace(/\s+/g, ' ').trim()
  const t = tallies.get(key) ?? { count: 0, us: 0 }
  t.count += 1
  t.us += us
  tallies.set(key, t)
}

// better-sqlite3: every statement Kysely runs goes through Statement#all/#run/#get/#iterate.
const probe = new BetterSqlite3(':memory:')
const statementProto = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, unknown>
probe.close()
for (const method of ['all', 'run', 'get'] as const) {
  const original = statementProto[method] as (...a: unknown[]) => unknown
  statementProto[method] = function (this: { source: string }, ...a: unknown[]) {
    const start = performance.now()
    try {
      return original.apply(this, a)
    } finally {
      record(this.source, (performance.now() - start) * 1000)
    }
  }
}
// pg: Client#query, timed from send to result (the round trip the request waits for).
const clientProto = pg.Client.prototype as unknown as Record<string, unknown>
const originalQuery = clientProto['query'] as (...a: unknown[]) => unknown
clientProto['query'] = function (this: unknown, ...a: unknown[]) {
  const first = a[0] as string | { text?: string }
  const text = typeof first === 'string' ? first : (first?.text ?? '?')
  const start = performance.now()
  const result = originalQuery.apply(this, a)
  if (result instanceof Promise) return result.finally(() => record(text, (performance.now() - start) * 1000))
  return result
}

const dataDir = mkdtempSync(join(tmpdir(), 'records-statements-'))
const kind = args.database === 'postgres' ? 'postgres' : 'sqlite'
const database = await openBenchDatabase(kind, dataDir, String(args['database-url']))
try {
  const root = resolve(import.meta.dirname, '../../..')
  const settings = loadSettings(
    {
      ...database.serviceEnv,
      DATA_DIR: dataDir,
      ADMIN_PASSWORD: 'bench-password-1',
      MODULES_FILE: join(root, 'modules.yaml'),
      RATE_LIMIT_IP_PER_MINUTE: '1000000000',
      RATE_LIMIT_TOKEN_PER_HOUR: '1000000000',
      LOG_LEVEL: 'error',
    },
    dataDir,
  )
  const service = await openService(settings)
  // The agents the creates are assigned to (agente_asignado references personal).
  const spec = service.spec.moduleByName.get('denuncias')
  if (spec === undefined) throw new Error('modules.yaml has no denuncias module')
  const seeded = Number(args.seed)
  await seedDenuncias(service, spec, seeded, 'bench-seed')
  const login = await service.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { username: 'admin', password: 'bench-password-1' },
  })
  const token = (login.json() as { data: { token: string } }).data.token
  const created: string[] = []
  const create = async (i: number) => {
    const response = await service.app.inject({
      method: 'POST',
      url: '/api/denuncias',
      headers: { authorization: `Bearer ${token}` },
      payload: creatableDenuncia(i),
    })
    if (response.statusCode !== 201) throw new Error(`create: ${response.statusCode} ${response.body}`)
    created.push(String((response.json() as { data: { _id: string } }).data._id))
  }
  const get = async (i: number) => {
    const response = await service.app.inject({
      method: 'GET',
      url: `/api/denuncias/${created[i % created.length]}`,
      headers: { authorization: `Bearer ${token}` },
    })
    if (response.statusCode !== 200) throw new Error(`get: ${response.statusCode} ${response.body}`)
  }
  // S2f's request (scripts/bench.ts): a page of the plain fields a list screen shows.
  const list = async () => {
    const response = await service.app.inject({
      method: 'GET',
      url: `/api/denuncias?limit=100&offset=${randomPageOffset(seeded)}&fields=${PLAIN_FIELDS.join(',')}`,
      headers: { authorization: `Bearer ${token}` },
    })
    if (response.statusCode !== 200) throw new Error(`list: ${response.statusCode} ${response.body}`)
  }
  const measured = args.request === 'get' ? get : args.request === 'list' ? list : create
  const warmup = Number(args.warmup)
  const creates = Number(args.creates)
  for (let i = 1; i <= warmup; i++) await create(i)
  const databaseUrl = database.serviceEnv['DATABASE_URL']
  const sampler = databaseUrl === undefined ? undefined : await startLockWaitSampler(databaseUrl)
  counting = true
  const start = performance.now()
  let next = 0
  const worker = async () => {
    while (next < creates) await measured(warmup + ++next)
  }
  await Promise.all(Array.from({ length: Number(args.concurrency) }, worker))
  const totalUs = ((performance.now() - start) * 1000) / creates
  counting = false
  const lockWaits = await sampler?.stop()
  await service.close()

  const rows = [...tallies.entries()].sort((a, b) => b[1].us - a[1].us)
  const sqlUs = rows.reduce((n, [, t]) => n + t.us, 0) / creates
  const perCreate = rows.reduce((n, [, t]) => n + t.count, 0) / creates
  console.log(
    `${database.label}: ${creates} ${args.request === 'create' ? 'creates' : `${args.request} requests`} through app.inject, ${args.concurrency} at a time; ${totalUs.toFixed(0)} µs per create, ` +
      `${perCreate.toFixed(2)} statements (${sqlUs.toFixed(0)} µs) of it in the driver`,
  )
  if (lockWaits !== undefined)
    console.log(
      `lock waits while counting: ${formatShares(lockWaits, Number(args.concurrency))}\n` +
        topWaiting(lockWaits, 3)
          .map((w) => `  ${(w.share * 100).toFixed(0).padStart(3)}% of the waits in: ${w.statement}`)
          .join('\n'),
    )
  console.log(`${'per create'.padStart(10)} ${'µs each'.padStart(8)} ${'µs/create'.padStart(9)}  statement`)
  for (const [text, t] of rows)
    console.log(
      `${(t.count / creates).toFixed(2).padStart(10)} ${(t.us / t.count).toFixed(0).padStart(8)} ${(t.us / creates).toFixed(0).padStart(9)}  ${text.length > 150 && process.env.FULL_SQL === undefined ? `${text.slice(0, 147)}...` : text}`,
    )
} finally {
  await database.drop()
  rmSync(dataDir, { recursive: true, force: true })
}
