// Three server processes on one PostgreSQL database and one Redis, behind no
// balancer but a client that spreads concurrent writes and reads across them. Afterwards:
// ids unique and per-year sequential (D8), every acknowledged write present, one valid audit
// chain (D18), If-Match decided by the database (D13), a logout on A seen by B and C (D20),
// and the per-IP limit counted once for all instances (D24).
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { compileService } from '../../../src/compile/service.js'
import { loadModulesConfig } from '../../../src/config/load.js'
import { createDatabase } from '../../../src/db/connect.js'
import { createFieldCipher, createKeyring } from '../../../src/db/crypto.js'
import { createRecordCodec } from '../../../src/db/records/codec.js'
import { verifyIntegrity } from '../../../src/db/operations/verify-integrity.js'
import { REPO_MODULES, VALID } from '../../helpers/api.js'
import { createTestDatabase, ON_POSTGRES, REDIS_URL, urlOf } from '../../helpers/postgres.js'
import { startServerProcess, type ServerProcess } from '../../helpers/server-process.js'

const IP_LIMIT = 40
const CREATES = 120
const CONCURRENCY = 12

interface Reply {
  readonly status: number
  readonly body: any
  readonly headers: Headers
}

async function call(
  server: ServerProcess,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; ip?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const response = await fetch(`${server.base}${path}`, {
    method,
    headers: {
      ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      // TRUST_PROXY is on, as behind a load balancer: each simulated client has its own address.
      'x-forwarded-for':
        options.ip ??
        `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  })
  return { status: response.status, body: await response.json(), headers: response.headers }
}

/** Runs `jobs` with at most `limit` in flight. */
async function pool<T>(jobs: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array(jobs.length)
  let next = 0
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < jobs.length) {
        const index = next++
        results[index] = await jobs[index]!()
      }
    }),
  )
  return results
}

t.test(
  'three instances on one PostgreSQL and one Redis behave as one service',
  {
    skip:
      ON_POSTGRES && REDIS_URL !== undefined
        ? false
        : 'needs PostgreSQL and Redis: runs in the PostgreSQL pass (npm test, npm run test:postgres)',
  },
  async (t) => {
    const database = await createTestDatabase()
    const url = urlOf(database)
    const secrets = {
      JWT_SECRET: randomBytes(48).toString('base64url'),
      RECORDS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    }
    const env = {
      ...secrets,
      DATABASE_URL: url,
      DATABASE_POOL_SIZE: '4',
      REDIS_URL: REDIS_URL!,
      REDIS_KEY_PREFIX: `records-test:${process.pid}:${randomBytes(4).toString('hex')}:`,
      MODULES_FILE: REPO_MODULES,
      ADMIN_PASSWORD: 'multi-instance-1',
      TRUST_PROXY: 'true',
      RATE_LIMIT_IP_PER_MINUTE: String(IP_LIMIT),
      RATE_LIMIT_TOKEN_PER_HOUR: '100000',
    }
    const dirs = [0, 1, 2].map(() => mkdtempSync(join(tmpdir(), 'records-instance-')))
    t.teardown(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })))
    // All three start at once on the empty database: migrations and the first admin take turns.
    const servers = await Promise.all(dirs.map((dir) => startServerProcess(t, { env: { ...env, DATA_DIR: dir } })))
    const [a, b, c] = servers as [ServerProcess, ServerProcess, ServerProcess]
    const login = await call(a, 'POST', '/auth/login', { body: { username: 'admin', password: env.ADMIN_PASSWORD } })
    t.equal(login.status, 200, 'the one admin logs in')
    const token = login.body.data.token as string

    // 1. Concurrent creates, reads and lists spread round-robin over the instances.
    const jobs = Array.from({ length: CREATES }, (_, i) => async () => {
      const server = servers[i % 3]!
      const module = i % 2 === 0 ? 'denuncias' : 'vehiculos'
      const created = await call(server, 'POST', `/${module}`, { token, body: VALID[module]!() })
      const read =
        created.status === 201
          ? await call(servers[(i + 1) % 3]!, 'GET', `/${module}/${created.body.data._id}`, { token })
          : undefined
      await call(servers[(i + 2) % 3]!, 'GET', `/${module}?limit=5`, { token })
      return { module, created, read }
    })
    const results = await pool(jobs, CONCURRENCY)
    t.same(
      results.filter((r) => r.created.status !== 201).map((r) => r.created.body),
      [],
      'every create is acknowledged',
    )
    t.ok(
      results.every((r) => r.read?.status === 200 && r.read.body.data._hash === r.created.body.data._hash),
      'each is read back on another instance',
    )
    for (const [module, prefix] of [
      ['denuncias', 'DEN'],
      ['vehiculos', 'VEH'],
    ] as const) {
      const ids = results.filter((r) => r.module === module).map((r) => r.created.body.data._id as string)
      const year = new Date().getFullYear()
      t.equal(new Set(ids).size, ids.length, `${module}: ids unique`)
      t.same(
        ids.map((id) => Number(id.split('-')[2])).sort((x, y) => x - y),
        ids.map((_, i) => i + 1),
        `${module}: per-year sequence 1..${ids.length}, no gap (D8)`,
      )
      t.ok(
        ids.every((id) => id.startsWith(`${prefix}-${year}-`)),
        `${module}: ${prefix}-${year}-NNNNN`,
      )
      const list = await call(c, 'GET', `/${module}?limit=1000`, { token })
      const listed = new Set(list.body.data.records.map((r: { _id: string }) => r._id))
      t.ok(
        ids.every((id) => listed.has(id)),
        `${module}: every acknowledged write is listed`,
      )
    }

    // 2. If-Match from every instance at once on one record: the database lets exactly one win (D13).
    const target = results.find((r) => r.module === 'denuncias')!.created.body.data._id as string
    const puts = await Promise.all(
      Array.from({ length: 9 }, (_, i) =>
        call(servers[i % 3]!, 'PUT', `/denuncias/${target}`, {
          token,
          body: { descripcion: `versión ${i}` },
          headers: { 'if-match': '"1"' },
        }),
      ),
    )
    t.same(puts.map((p) => p.status).sort(), [200, ...Array(8).fill(409)], 'one 200, eight 409 Conflicto de versión')
    t.equal((await call(b, 'GET', `/denuncias/${target}`, { token })).body.data._version, 2)

    // 3. The audit chain is one valid chain, checked on the database itself.
    const spec = compileService(loadModulesConfig(REPO_MODULES))
    const db = await createDatabase(url)
    t.teardown(() => db.close())
    const codec = createRecordCodec(
      'postgres',
      createFieldCipher(createKeyring([Buffer.from(secrets.RECORDS_ENCRYPTION_KEY, 'base64')])),
    )
    const report = await verifyIntegrity(db, spec, codec)
    t.same(report.problems, [], 'the audit chain and every record verify (D17, D18)')
    t.ok(report.entries >= CREATES + 2, `${report.entries} audit entries checked`)

    // 4. A logout on A rejects the token on B and C at once (D20).
    const session = await call(a, 'POST', '/auth/login', { body: { username: 'admin', password: env.ADMIN_PASSWORD } })
    const other = session.body.data.token as string
    t.equal((await call(b, 'GET', '/me', { token: other })).status, 200, 'valid everywhere before')
    t.equal((await call(a, 'POST', '/auth/logout', { token: other })).status, 200)
    for (const server of [b, c])
      t.equal((await call(server, 'GET', '/me', { token: other })).status, 401, 'revoked on the other instances')

    // 5. The per-IP limit is global: IP_LIMIT requests over three instances, then 429 on any (D24).
    const msIntoMinute = Date.now() % 60_000
    if (msIntoMinute > 45_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - msIntoMinute + 200))
    const ip = '192.0.2.77'
    const spread = []
    for (let i = 0; i < IP_LIMIT; i++)
      spread.push(await call(servers[i % 3]!, 'GET', '/denuncias?limit=1', { token, ip }))
    t.same(
      spread.filter((r) => r.status !== 200).map((r) => r.status),
      [],
      `${IP_LIMIT} requests pass across the three`,
    )
    t.equal(spread.at(-1)?.headers.get('x-ratelimit-remaining'), '0', 'the last one saw the shared count')
    for (const server of servers)
      t.equal(
        (await call(server, 'GET', '/denuncias?limit=1', { token, ip })).status,
        429,
        'then 429 on every instance',
      )

    for (const server of servers) t.equal(await server.stop(), 0, 'a clean stop')
  },
)
