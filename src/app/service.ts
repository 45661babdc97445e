// Opens the whole service from settings: the engine (engine.ts: load -> compile -> migrate ->
// stores), the first superadmin, then buildApp. Used by `npm start`, `records serve` and the
// tests; never listens by itself.
import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { sql } from 'kysely'
import type { FastifyInstance, FastifyServerOptions } from 'fastify'
import { isAppError } from '../errors.js'
import type { ServiceSpec } from '../compile/types.js'
import type { Keyring } from '../db/crypto.js'
import type { Database } from '../db/database.js'
import type { RecordCodec } from '../db/record-codec.js'
import type { IntegrityFailure, RecordStore } from '../db/record-store.js'
import { canonicalizeUsernames } from '../db/username-migration.js'
import { buildApp } from '../http/app.js'
import type { ClosableCounterStore } from '../http/redis-counter-store.js'
import type { AccountRules } from '../records/account-rules.js'
import { openEngine } from './engine.js'
import type { Settings } from './settings.js'

export interface OpenServiceOptions {
  readonly logger?: FastifyServerOptions['logger']
  readonly clock?: () => Date
}

export interface OpenService {
  readonly app: FastifyInstance
  readonly spec: ServiceSpec
  readonly database: Database
  readonly store: RecordStore
  readonly codec: RecordCodec
  readonly keyring: Keyring
  /** Migration steps applied at this start, in plain words. */
  readonly migrated: readonly string[]
  /** Set when this start created the first superadmin with a generated password. */
  readonly initialAdmin: { readonly username: string; readonly password: string | undefined } | undefined
  close(): Promise<void>
}

/** package.json's version, from src/ (tests) or dist/src/ (npm start). */
export function serviceVersion(): string {
  for (const candidate of ['../package.json', '../../package.json']) {
    const file = new URL(candidate, import.meta.url)
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string }
      if (pkg.name === 'municipal-records' && pkg.version !== undefined) return pkg.version
    }
  }
  return '0.0.0'
}

async function createInitialAdmin(spec: ServiceSpec, store: RecordStore, settings: Settings, rules: AccountRules) {
  const superRole = [...spec.roles.values()].find((r) => r.permissions.includes('*.*'))
  if (superRole === undefined) throw new Error('modules.yaml no define ningún rol con el permiso *.* para el primer administrador')
  const accounts = spec.accounts
  // 18 random bytes: 24 base64url characters, above every minimum of the password policy.
  const password = settings.adminPassword ?? randomBytes(18).toString('base64url')
  try {
    rules.checkPassword(password, { username: settings.adminUsername, role: superRole.name })
  } catch (error) {
    const reasons = isAppError(error) ? (error.details ?? []).map((d) => d.message).join('; ') : String(error)
    throw new Error(`ADMIN_PASSWORD no cumple la política de contraseñas: ${reasons}`)
  }
  const values: Record<string, unknown> = rules.check({ [accounts.username]: settings.adminUsername, [accounts.password]: password, [accounts.role]: superRole.name })
  // Any other required text field of the accounts module gets a descriptive value.
  for (const field of accounts.spec.fields)
    if (field.def.required && values[field.name] === undefined && field.def.type === 'string') values[field.name] = 'Administrador inicial'
  await store.create(accounts.spec, values, { actor: 'sistema', reveal: false })
  return { username: settings.adminUsername, password: settings.adminPassword === undefined ? password : undefined }
}

/** Shared counters when REDIS_URL is set; a Redis outage is logged at most once a minute. */
async function sharedCounters(settings: Settings, log: () => FastifyInstance['log'] | undefined): Promise<ClosableCounterStore | undefined> {
  if (settings.redisUrl === undefined) return undefined
  // ioredis is imported only when REDIS_URL is set (about 35 ms of every other start, issue #7).
  const { createRedisCounterStore } = await import('../http/redis-counter-store.js')
  let lastReport = 0
  return createRedisCounterStore({
    url: settings.redisUrl,
    keyPrefix: settings.redisKeyPrefix,
    onError(error) {
      if (Date.now() - lastReport < 60_000) return
      lastReport = Date.now()
      log()?.warn({ err: error }, 'Redis no responde: los límites de peticiones se cuentan por instancia hasta que vuelva')
    },
  })
}

export async function openService(settings: Settings, options: OpenServiceOptions = {}): Promise<OpenService> {
  let app: FastifyInstance | undefined
  // The app is built after the store it serves: errors of a later flush reach its log.
  const onReadAuditError = (error: unknown) =>
    app?.log.error({ err: error }, 'no se pudo escribir la auditoría de lecturas')
  const clock = options.clock === undefined ? {} : { clock: options.clock }
  // The alert the error handler raises for other integrity failures, once per damaged record version.
  const onIntegrityFailure = (failure: IntegrityFailure) => app?.log.fatal(
    { alert: 'integridad', record: `${failure.module}:${failure.recordId}`, version: failure.version, fields: failure.fields },
    'valores cifrados que no superan su comprobación: se leen como null (records audit verify los lista)')
  const engine = await openEngine(settings, { ...clock, onReadAuditError, onIntegrityFailure })
  const { spec, database, store, accounts, accountRules } = engine
  let counterStore: ClosableCounterStore | undefined
  try {
    // Refuses to start while two accounts differ only in case, accents' form or spaces (issue #13 item 4).
    const renamed = await canonicalizeUsernames(database, spec.accounts, store)
    counterStore = await sharedCounters(settings, () => app?.log)
    // Instances starting together on one empty PostgreSQL: one creates the admin, the others find it taken.
    const initialAdmin = (await accounts.count()) === 0
      ? await createInitialAdmin(spec, store, settings, accountRules).catch((error: unknown) => {
        if (isAppError(error) && error.statusCode === 409) return undefined
        throw error
      })
      : undefined
    const built = await buildApp(spec, {
      store,
      accounts,
      accountRules,
      jwtSecret: settings.jwtSecret,
      basePath: settings.basePath,
      rateLimits: settings.rateLimits,
      ...(counterStore === undefined ? {} : { counterStore }),
      trustProxy: settings.trustProxy,
      corsOrigins: settings.corsOrigins,
      version: serviceVersion(),
      timeouts: settings.timeouts,
      maxQueryLength: settings.maxQueryLength,
      loginLock: settings.loginLock,
      logger: options.logger ?? false,
      clock: engine.clock,
      ping: async () => void (await sql`select 1`.execute(database.db)),
    })
    app = built
    const counters = counterStore
    return {
      app: built, spec, database, store, initialAdmin,
      codec: engine.codec, keyring: engine.keyring, migrated: [...engine.migrated, ...renamed],
      async close() {
        await built.close()
        await counters?.close()
        await engine.close()
      },
    }
  } catch (error) {
    await counterStore?.close()
    await engine.close()
    throw error
  }
}
