// A real service on a real SQLite file in a temp dir (or, with RECORDS_TEST_DATABASE=postgres,
// a fresh PostgreSQL database per data directory), driven over HTTP by app.inject.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import { openService, type OpenService, type OpenServiceOptions } from '../../src/app/service.js'
import { loadSettings } from '../../src/app/settings.js'
import { TEST_BCRYPT_ROUNDS } from '../../src/db/records/codec.js'
import { builtReadAuditWorker, WITHOUT_TS_NODE } from './child-env.js'
import {
  adoptDatabase,
  cloneDatabaseFor,
  createRunDatabase,
  databaseFor,
  ON_POSTGRES,
  redisEnv,
  urlOf,
} from './postgres.js'

export { ON_POSTGRES }

export const ADMIN = { username: 'admin', password: 'patrulla-nocturna-47' }
export const REPO_MODULES = new URL('../../modules.yaml', import.meta.url).pathname

export interface Reply {
  readonly status: number
  readonly body: any
  readonly headers: Record<string, string | string[] | number | undefined>
}

export interface RequestOptions {
  readonly token?: string | undefined
  readonly body?: unknown
  readonly headers?: Record<string, string>
  readonly rawBody?: string
}

export interface TestApi {
  readonly service: OpenService
  readonly dataDir: string
  readonly base: string
  request(method: string, path: string, options?: RequestOptions): Promise<Reply>
  login(username?: string, password?: string): Promise<string>
  /**
   * Creates an account with `role` (and `extra` account fields, e.g. personal_id) through the API; returns a token for
   * it.
   */
  userWithRole(
    role: string,
    extra?: Record<string, unknown>,
  ): Promise<{ token: string; id: string; username: string; password: string }>
  create(module: string, body: unknown, token?: string): Promise<any>
  adminToken(): Promise<string>
  /**
   * Seeds the targets a test names by id (`PER-2026-00011`): creates records of the module of
   * that prefix, as the administrator, until the id exists. Writes check every reference:
   * `userWithRole` and `create` seed the references of their bodies through it;
   * test/integration/records/references.test.ts tests the check itself with `request`.
   */
  seedTargets(body: Record<string, unknown>, module?: string): Promise<void>
}

export interface StartOptions {
  readonly env?: Record<string, string>
  readonly dataDir?: string
  readonly clock?: () => Date
  /** The periodic jobs' timers (test/helpers/job-clock.ts): the test moves the days. */
  readonly jobClock?: OpenServiceOptions['jobClock']
  readonly keepDir?: boolean
  /** Forwarded to openService: e.g. `{ level: 'debug', stream }` to capture the logs. */
  readonly logger?: OpenServiceOptions['logger']
  /**
   * How long consultation entries wait before they are written: READ_AUDIT_DELAY_MS unless
   * the test is about the buffer itself (the service's own default is 1 s).
   */
  readonly readAuditDelayMs?: number
}

/**
 * The tests' consultation buffer: entries are written 20 ms after the read instead of 1 s, so
 * a test that reads the audit trail waits a moment (`eventually`), not a second per request.
 */
export const READ_AUDIT_DELAY_MS = 20

/** The settings of every test service but its data directory's (and a test's own `env`). */
const testEnv = (dataDir: string): Record<string, string> => ({
  DATA_DIR: dataDir,
  MODULES_FILE: REPO_MODULES,
  ADMIN_USERNAME: ADMIN.username,
  ADMIN_PASSWORD: ADMIN.password,
  RATE_LIMIT_IP_PER_MINUTE: '100000',
  RATE_LIMIT_TOKEN_PER_HOUR: '100000',
})

const templates = new Map<string, Promise<string>>()

/**
 * A migrated installation with its first superadmin, made once per bcrypt cost (the admin's hash
 * is in it): its data directory and, on PostgreSQL, its database. A start with the default
 * settings copies it (the SQLite file; CREATE DATABASE ... TEMPLATE) instead of creating and
 * migrating every table again. Under scripts/tap.mjs the run's test processes share one
 * (runTemplate); a file run alone makes its own. The copy gets its own JWT secret; it shares the
 * template's generated encryption key, as copyTestData's copies do.
 */
function migratedTemplate(): Promise<string> {
  const key = process.env[TEST_BCRYPT_ROUNDS] ?? ''
  let made = templates.get(key)
  if (made === undefined) {
    const runDir = process.env['RECORDS_TEST_RUN_DIR']
    made = runDir ? runTemplate(runDir, key) : processTemplate()
    templates.set(key, made)
  }
  return made
}

async function makeTemplate(dir: string): Promise<void> {
  const service = await openService(loadSettings({ ...testEnv(dir), ...(await databaseEnv(dir)) }))
  await service.close()
  rmSync(join(dir, 'jwt-secret'))
}

async function processTemplate(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'records-template-'))
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
  await makeTemplate(dir)
  return dir
}

/** How long a test process waits for the template another one is making. */
const TEMPLATE_WAIT_MS = 240_000

/**
 * The run's template (scripts/tap.mjs gives the run a directory): the first test process to claim
 * its directory (an atomic mkdir) makes it, the others wait for its `.ready` file. On PostgreSQL
 * its database's name is in its `.database` file, written as soon as it exists: scripts/tap.mjs
 * drops every database named so, and removes the directory, when the run ends. About 0.6 s of CPU
 * per test process on SQLite, and on PostgreSQL a database created and migrated over the wire,
 * made once instead.
 */
async function runTemplate(runDir: string, key: string): Promise<string> {
  const dir = join(runDir, `template-${ON_POSTGRES ? 'postgres' : 'sqlite'}-${key || 'production-cost'}`)
  try {
    mkdirSync(dir, { mode: 0o700 })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    await madeElsewhere(dir)
    if (ON_POSTGRES) adoptDatabase(dir, readFileSync(`${dir}.database`, 'utf8'))
    return dir
  }
  try {
    if (ON_POSTGRES) writeFileSync(`${dir}.database`, await createRunDatabase(dir))
    await makeTemplate(dir)
    writeFileSync(`${dir}.ready`, '')
  } catch (error) {
    writeFileSync(`${dir}.failed`, String(error))
    throw error
  }
  return dir
}

/** Waits for the test process that claimed `dir` to make the template there. */
async function madeElsewhere(dir: string): Promise<void> {
  for (const started = Date.now(); Date.now() - started < TEMPLATE_WAIT_MS;) {
    if (existsSync(`${dir}.ready`)) return
    if (existsSync(`${dir}.failed`))
      throw new Error(`the run's test template failed: ${readFileSync(`${dir}.failed`, 'utf8')}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`the run's test template was not ready after ${TEMPLATE_WAIT_MS / 1000} s: ${dir}`)
}

/**
 * The consultation log's writer thread from its bundle when the build is current
 * (builtReadAuditWorker); its coverage comes from the tests that start the service otherwise.
 */
const builtWorker = builtReadAuditWorker()

export async function startTestApi(t: Test, options: StartOptions = {}): Promise<TestApi> {
  // Its worker threads inherit process.env: set again after tap's own start reset it.
  Object.assign(process.env, WITHOUT_TS_NODE)
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'records-test-'))
  // A first start with the default settings: what the template holds. A test's own settings,
  // clock or directory may change what a first start writes; those start from nothing.
  const asTemplate =
    options.dataDir === undefined && options.clock === undefined && Object.keys(options.env ?? {}).length === 0
  if (asTemplate) await copyTestData(await migratedTemplate(), dataDir)
  const settings = loadSettings({
    ...testEnv(dataDir),
    ...(await databaseEnv(dataDir)),
    ...(ON_POSTGRES ? redisEnv() : {}),
    ...options.env,
  })
  const service = await openService(settings, {
    readAuditDelayMs: options.readAuditDelayMs ?? READ_AUDIT_DELAY_MS,
    ...(builtWorker === undefined ? {} : { readAuditWorker: builtWorker }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.jobClock === undefined ? {} : { jobClock: options.jobClock }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  })
  t.teardown(async () => {
    await service.close()
    if (options.dataDir === undefined && options.keepDir !== true) rmSync(dataDir, { recursive: true, force: true })
  })
  const base = settings.basePath === '/' ? '' : settings.basePath
  let admin: string | undefined
  let users = 0
  const prefixes = new Map(service.spec.modules.map((m) => [m.prefix, m.name]))

  const api: TestApi = {
    service,
    dataDir,
    base,
    async request(method, path, { token, body, headers = {}, rawBody } = {}) {
      const response = await service.app.inject({
        method: method as 'GET',
        url: `${base}${path}`,
        headers: {
          ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
          ...(body === undefined && rawBody === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        ...(rawBody !== undefined ? { payload: rawBody } : body === undefined ? {} : { payload: JSON.stringify(body) }),
      })
      let parsed: unknown
      try {
        parsed = response.json()
      } catch {
        parsed = response.body
      }
      return { status: response.statusCode, body: parsed, headers: response.headers }
    },
    async login(username = ADMIN.username, password = ADMIN.password) {
      const reply = await api.request('POST', '/auth/login', { body: { username, password } })
      if (reply.status !== 200) throw new Error(`login failed: ${reply.status} ${JSON.stringify(reply.body)}`)
      return reply.body.data.token as string
    },
    async adminToken() {
      admin ??= await api.login()
      return admin
    },
    async seedTargets(body, module = service.spec.accounts.spec.name) {
      const spec = service.spec.moduleByName.get(module)
      for (const ref of spec?.references ?? []) {
        const id = body[ref.field]
        if (typeof id !== 'string') continue
        const [prefix = '', year = '', number = ''] = id.split('-')
        const target = prefixes.get(prefix)
        if (target !== ref.module || VALID[target] === undefined) continue
        if ((await api.request('GET', `/${target}/${id}`, { token: await api.adminToken() })).status === 200) continue
        for (;;) {
          const created = await api.create(target, VALID[target]())
          const [, madeYear = '', made = ''] = String(created._id).split('-')
          if (madeYear !== year) throw new Error(`seedTargets: ${id} is not of this year's sequence (${madeYear})`)
          if (Number(made) >= Number(number)) break
        }
      }
    },
    async userWithRole(role, extra = {}) {
      await api.seedTargets(extra)
      users += 1
      const username = `${role}_${users}`
      const password = `password-${role}-${users}`
      const created = await api.request('POST', '/usuarios', {
        token: await api.adminToken(),
        body: { username, password, nombre: `Usuario ${role}`, rol: role, ...extra },
      })
      if (created.status !== 201) throw new Error(`user create failed: ${JSON.stringify(created.body)}`)
      return { token: await api.login(username, password), id: created.body.data._id as string, username, password }
    },
    async create(module, body, token) {
      await api.seedTargets(body as Record<string, unknown>, module)
      const reply = await api.request('POST', `/${module}`, { token: token ?? (await api.adminToken()), body })
      if (reply.status !== 201)
        throw new Error(`create ${module} failed: ${reply.status} ${JSON.stringify(reply.body)}`)
      return reply.body.data
    },
  }
  return api
}

/**
 * The suite hashes passwords at a low bcrypt cost (test/setup/register.mjs); a test that
 * measures bcrypt itself (D19's timing) opens its services at the production cost instead.
 */
export function productionBcryptCost(t: Test): void {
  const saved = process.env[TEST_BCRYPT_ROUNDS]
  delete process.env[TEST_BCRYPT_ROUNDS]
  t.teardown(() => {
    if (saved !== undefined) process.env[TEST_BCRYPT_ROUNDS] = saved
  })
}

/** The DATABASE_URL a test that opens the service itself must pass for `dataDir` ({} on SQLite). */
export async function databaseEnv(dataDir: string): Promise<Record<string, string>> {
  return ON_POSTGRES ? { DATABASE_URL: urlOf(await databaseFor(dataDir)) } : {}
}

/** Copies a test installation (its files and, on PostgreSQL, its database) from one data directory to another. */
export async function copyTestData(from: string, to: string): Promise<void> {
  cpSync(from, to, { recursive: true })
  if (ON_POSTGRES) await cloneDatabaseFor(from, to)
}

/** Valid bodies per module: only the required fields, plus what a test adds. */
export const VALID: Record<string, () => Record<string, unknown>> = {
  denuncias: () => ({
    denunciante_nombre: 'Ana Pérez',
    tipo: 'hurto',
    fecha_hechos: '2026-11-20 10:30:00',
    lugar_hechos: 'Plaza Mayor',
    descripcion: 'Sustracción de cartera',
  }),
  sanciones: () => ({
    tipo: 'trafico',
    infractor_nombre: 'Luis Gómez',
    fecha_infraccion: '2026-11-19 08:00:00',
    lugar_infraccion: 'Calle Real 3',
    importe: 200,
  }),
  atestados: () => ({ tipo: 'penal', juzgado: 'Juzgado de Instrucción nº 2' }),
  personal: () => ({
    tip: `TIP-${Math.random().toString(36).slice(2, 10)}`,
    nombre: 'Marta',
    apellidos: 'Ruiz Sanz',
    escala: 'oficial',
  }),
  vehiculos: () => ({
    matricula: `${Math.floor(Math.random() * 9000 + 1000)}-${Math.random().toString(36).slice(2, 5).toUpperCase()}`,
    tipo: 'patrulla',
  }),
  sala092: () => ({ tipo_incidencia: 'urgente', descripcion: 'Ruidos en vivienda' }),
  turnos: () => ({ agente_id: 'PER-2026-00001', fecha: '2026-11-23', tipo_turno: 'mañana' }),
  equipamiento: () => ({ tipo: 'radio', nombre: 'Emisora portátil' }),
}
