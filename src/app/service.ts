// Opens the whole service from settings: the engine (engine.ts: load -> compile -> migrate ->
// stores), the first superadmin, then buildApp. Used by `npm start`, `records serve` and the
// tests; never listens by itself.
import type { KeyDestroyFailure } from '../db/retention/state.js'
import { createAuditTail } from '../db/audit/tail.js'
import { createEventTicketStore } from '../db/accounts/event-tickets.js'
import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { sql } from 'kysely'
import type { FastifyInstance, FastifyServerOptions } from 'fastify'
import { adminRoleMissing, isAppError, settingInvalid } from '../errors.js'
import { FIELD_TYPES } from '../compile/field-types.js'
import type { ServiceSpec } from '../compile/types.js'
import type { FieldType } from '../config/types.js'
import { createPasskeyChallengeStore } from '../db/accounts/passkey-challenges.js'
import type { SecondFactorStore } from '../db/accounts/second-factors.js'
import { TOTP_ISSUER } from '../db/accounts/totp.js'
import type { AccountStore } from '../db/accounts/store.js'
import type { ChangeWatch } from '../db/change-watch.js'
import type { Keyring } from '../db/crypto.js'
import type { LiveKeys } from '../db/keys/live-keys.js'
import type { Database } from '../db/database.js'
import type { ReadAuditStatus, RefusedEntry } from '../db/audit/read-audit.js'
import type { RecordKeys, UnreadableKey } from '../db/keys/record-keys.js'
import type { RecordCodec } from '../db/records/codec.js'
import type { IntegrityFailure, RecordStore } from '../db/records/types.js'
import type { FileStore } from '../db/files/store.js'
import { canonicalizeUsernames } from '../db/accounts/username-migration.js'
import { buildApp } from '../http/app.js'
import type { Redis } from 'ioredis'
import { createLoginFailureStore } from '../db/accounts/login-failures.js'
import type { AccountRules } from '../records/account-rules.js'
import { openEngine, type EngineOptions } from './engine.js'
import type { JobClock } from './job-runner.js'
import { startServiceJobs } from './jobs.js'
import { SERVICE_ACTOR } from './retention-job.js'
import { createSchemaWatch } from './schema-watch.js'
import { consoleDir } from './console-files.js'
import type { Settings } from './settings.js'

export interface OpenServiceOptions {
  readonly logger?: FastifyServerOptions['logger']
  readonly clock?: () => Date
  /** False only in `npm run bench`: see EngineOptions.consultationLog. */
  readonly consultationLog?: boolean
  /** False only in `npm run bench`: see EngineOptions.recordKeys. */
  readonly recordKeys?: boolean
  /** Only the tests pass it: see EngineOptions.readAuditDelayMs. */
  readonly readAuditDelayMs?: number
  /** Only the tests pass it: see EngineOptions.readAuditWorker. */
  readonly readAuditWorker?: EngineOptions['readAuditWorker']
  /** See EngineOptions.programId. */
  readonly programId?: string
  /** The periodic jobs' timers (jobs.ts); only the tests pass one, to move the days themselves. */
  readonly jobClock?: JobClock
}

export interface OpenService {
  readonly app: FastifyInstance
  readonly spec: ServiceSpec
  readonly database: Database
  readonly store: RecordStore
  /** Evidence files and their custody (D43). */
  readonly files: FileStore
  readonly accounts: AccountStore
  /** Each account's second factors (D42). */
  readonly factors: SecondFactorStore
  readonly codec: RecordCodec
  /** The per-record data keys (D41). */
  readonly recordKeys: RecordKeys
  /** The configured keys; `activeId`: the key every write uses, the database's. */
  readonly keyring: Keyring
  readonly keys: LiveKeys
  readonly changes: ChangeWatch
  /** Migration steps applied at this start, in plain words. */
  readonly migrated: readonly string[]
  /** Set when this start created the first superadmin with a generated password. */
  readonly initialAdmin: { readonly username: string; readonly password: string | undefined } | undefined
  /** The consultation log's writer (F12): after `close`, `unwritten` counts the entries lost. */
  consultationLog(): ReadAuditStatus
  /** Resolves once the periodic jobs' runs in progress have ended (tests that move a job clock). */
  jobsSettled(): Promise<void>
  close(): Promise<void>
}

/** package.json's version, from src/app/ (tests) or dist/src/app/ (npm start). */
export function serviceVersion(): string {
  for (const candidate of ['../../package.json', '../../../package.json']) {
    const file = new URL(candidate, import.meta.url)
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string }
      if (pkg.name === 'municipal-records' && pkg.version !== undefined) return pkg.version
    }
  }
  return '0.0.0'
}

/** Text bounded by length alone: a sentence fits (a password hash does not count). */
const isFreeText = (type: FieldType): boolean => {
  const { bounds, writeOnly } = FIELD_TYPES[type].declaration
  return bounds === 'text' && !writeOnly
}

async function createInitialAdmin(spec: ServiceSpec, store: RecordStore, settings: Settings, rules: AccountRules) {
  const superRole = [...spec.roles.values()].find((r) => r.permissions.includes('*.*'))
  if (superRole === undefined) throw adminRoleMissing()
  const accounts = spec.accounts
  // 18 random bytes: 24 base64url characters, above every minimum of the password policy.
  const password = settings.adminPassword ?? randomBytes(18).toString('base64url')
  try {
    rules.checkPassword(password, { username: settings.adminUsername, role: superRole.name })
  } catch (error) {
    const reasons = isAppError(error) ? (error.details ?? []).map((d) => d.message).join('; ') : String(error)
    throw settingInvalid(`ADMIN_PASSWORD no cumple la política de contraseñas: ${reasons}`, error)
  }
  const values: Record<string, unknown> = rules.check({
    [accounts.username]: settings.adminUsername,
    [accounts.password]: password,
    [accounts.role]: superRole.name,
  })
  // Any other required free-text field (string, text) of the accounts module gets a descriptive value.
  for (const field of accounts.spec.fields)
    if (field.def.required && values[field.name] === undefined && isFreeText(field.def.type))
      values[field.name] = 'Administrador inicial'
  await store.create(accounts.spec, values, { actor: 'sistema', reveal: false, user: null })
  return { username: settings.adminUsername, password: settings.adminPassword === undefined ? password : undefined }
}

/** The Redis client of REDIS_URL: rate limits and failed logins shared by every instance. */
async function sharedRedis(settings: Settings): Promise<Redis | undefined> {
  if (settings.redisUrl === undefined) return undefined
  // ioredis is imported only when REDIS_URL is set (about 35 ms of every other start).
  const { Redis } = await import('ioredis')
  // No offline queue: while Redis is away a count fails at once and is made per process or in
  // the database (redisOutage), instead of every request waiting for a reconnection.
  const redis = new Redis(settings.redisUrl, {
    keyPrefix: settings.redisKeyPrefix,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    lazyConnect: true,
  })
  redis.on('error', () => undefined) // reported per failed count (redisOutage), not once per reconnect attempt
  // Ready before the first request when Redis answers; a Redis that does not holds the start 2 s at most.
  const twoSeconds = new Promise((resolve) => setTimeout(resolve, 2000).unref())
  await Promise.race([redis.connect().catch(() => undefined), twoSeconds])
  return redis
}

/** A Redis outage, logged at most once a minute. */
function redisOutage(log: () => FastifyInstance['log'] | undefined): (error: unknown) => void {
  let lastReport = 0
  return (error) => {
    if (Date.now() - lastReport < 60_000) return
    lastReport = Date.now()
    const message =
      'Redis no responde: los límites de peticiones se cuentan por instancia, ' +
      'y los inicios de sesión fallidos en la base de datos, hasta que vuelva'
    log()?.warn({ err: error }, message)
  }
}

/** Failed logins in Redis when configured (the database while it is away), else the database. */
async function loginFailureStore(database: Database, redis: Redis | undefined, onError: (error: unknown) => void) {
  if (redis === undefined) return createLoginFailureStore(database)
  const { createRedisLoginFailureStore } = await import('../db/accounts/login-failures-redis.js')
  return createRedisLoginFailureStore(redis, createLoginFailureStore(database), onError)
}

export async function openService(settings: Settings, options: OpenServiceOptions = {}): Promise<OpenService> {
  let app: FastifyInstance | undefined
  // The app is built after the store it serves: errors of a later flush reach its log.
  const onReadAuditError = (error: unknown) =>
    app?.log.error({ err: error }, 'no se pudo escribir la auditoría de lecturas')
  // F1: one entry the database refuses, set apart so that the others are written; its request id,
  // never its content (the motivo or the ids may be personal data).
  const onReadAuditRefused = (entry: RefusedEntry) =>
    app?.log.error(
      { alert: 'auditoria', ...entry },
      'la base de datos rechazó una entrada de la auditoría de consultas: no consta; las demás se escriben',
    )
  const clock = options.clock === undefined ? {} : { clock: options.clock }
  // The alert the error handler raises for other integrity failures, once per damaged record version.
  const onIntegrityFailure = (failure: IntegrityFailure) =>
    app?.log.fatal(
      {
        alert: 'integridad',
        record: `${failure.module}:${failure.recordId}`,
        version: failure.version,
        fields: failure.fields,
      },
      'valores cifrados que no superan su comprobación: se leen como null (records audit verify los lista)',
    )
  // D41: a data key's row that does not unwrap (altered, or relabelled to another record); once per key.
  const onUnreadableRecordKey = (failure: UnreadableKey) =>
    app?.log.error(
      {
        alert: 'integridad',
        err: failure.error,
        record: `${failure.module}:${failure.recordId}`,
        key: failure.keyId,
      },
      'la clave de datos de un registro no se desenvuelve: sus valores se leen como ilegibles (records audit verify la nombra)',
    )
  // D41, SQLite: the erasure stands; its keys wait for the sweep of the next start or retention run.
  const onKeyDestroyFailure = (failure: KeyDestroyFailure) =>
    app?.log.error(
      { alert: 'supresion', err: failure.error, record: `${failure.module}:${failure.recordId}` },
      `no se pudo destruir la clave de datos del registro suprimido ${failure.module}/${failure.recordId}: la destruye el barrido del próximo arranque o de la próxima ejecución de retención`,
    )
  const onSealError = (error: unknown) =>
    app?.log.error(
      { err: error },
      'escritura guardada; su entrada de auditoría queda pendiente de sellar (la sella la próxima escritura o el latido de la instancia)',
    )
  const consultationLog = options.consultationLog === false ? { consultationLog: false } : {}
  const programId = options.programId === undefined ? {} : { programId: options.programId }
  const engine = await openEngine(settings, {
    ...clock,
    onReadAuditError,
    onReadAuditRefused,
    onIntegrityFailure,
    onUnreadableRecordKey,
    onKeyDestroyFailure,
    onSealError,
    ...consultationLog,
    ...(options.recordKeys === false ? { recordKeys: false } : {}),
    ...programId,
    ...(options.readAuditDelayMs === undefined ? {} : { readAuditDelayMs: options.readAuditDelayMs }),
    ...(options.readAuditWorker === undefined ? {} : { readAuditWorker: options.readAuditWorker }),
  })
  const { spec, database, store, accounts, accountRules } = engine
  let redis: Redis | undefined
  const closeRedis = async () => void (await redis?.quit().catch(() => redis?.disconnect()))
  const onRedisError = redisOutage(() => app?.log)
  const schemaWatch = createSchemaWatch({
    modulesFile: settings.modulesFile,
    modules: spec.modules,
    database,
    warn: (message) => app?.log.warn(message),
  })
  try {
    // Refuses to start while two accounts differ only in case, accents' form or spaces.
    const usernames = await canonicalizeUsernames(database, spec.accounts, store)
    redis = await sharedRedis(settings)
    // Instances starting together on one empty PostgreSQL: one creates the admin, the others find it taken.
    const initialAdmin =
      (await accounts.count()) === 0
        ? await createInitialAdmin(spec, store, settings, accountRules).catch((error: unknown) => {
            if (isAppError(error) && error.statusCode === 409) return undefined
            throw error
          })
        : undefined
    const consoleFiles = settings.consoleEnabled ? consoleDir() : undefined
    const built = await buildApp(spec, {
      store,
      retention: engine.retention,
      files: engine.files,
      subjects: engine.subjects,
      accounts,
      factors: engine.factors,
      passkeys: {
        challenges: createPasskeyChallengeStore(database),
        relyingParty: { id: settings.webauthn.rpId, origin: settings.webauthn.origin, name: TOTP_ISSUER },
      },
      accountRules,
      jwtSecret: settings.jwtSecret,
      basePath: settings.basePath,
      rateLimits: settings.rateLimits,
      ...(redis === undefined ? {} : { redis, onRedisError }),
      trustProxy: settings.trustProxy,
      corsOrigins: settings.corsOrigins,
      ...(consoleFiles === undefined ? {} : { console: { dir: consoleFiles } }),
      version: serviceVersion(),
      timeouts: settings.timeouts,
      maxQueryLength: settings.maxQueryLength,
      loginFailures: await loginFailureStore(database, redis, onRedisError),
      loginProtection: settings.loginProtection,
      events: {
        tail: createAuditTail(database),
        tickets: createEventTicketStore(database),
        limits: settings.eventStreams,
      },
      logger: options.logger ?? false,
      clock: engine.clock,
      ping: async () => void (await sql`select 1`.execute(database.db)),
      schemaDrift: () => schemaWatch.check(),
      consultationLog: () => engine.readAuditStatus(),
    })
    app = built
    if (settings.consoleEnabled && consoleFiles === undefined)
      built.log.warn(
        'La consola no está construida (falta dist/console/): ejecute npm run build; /consola/ responde 404',
      )
    // Accounts kept from before the username rule (F8): named at every start until renamed.
    for (const warning of usernames.warnings) built.log.warn({ event: 'usuario_fuera_de_regla' }, warning)
    // The heartbeat, the schema watch and every other periodic job (jobs.ts).
    const jobs = await startServiceJobs({
      database,
      keys: engine.keys,
      changes: engine.changes,
      heartbeatMs: settings.heartbeatMs,
      schemaWatch,
      log: built.log,
      onSealError,
      retention: {
        database,
        spec,
        store: engine.retention,
        clock: engine.clock,
        actor: SERVICE_ACTOR,
        actaDir: settings.retentionActaDir,
        keyFile: settings.auditCheckpointKeyFile,
        sweepKeys: () => engine.recordKeys.sweep(spec.modules),
        onSweepError: (error) =>
          app?.log.error(
            { alert: 'supresion', err: error },
            'no se pudieron destruir las claves de datos pendientes de registros suprimidos: se reintenta en el próximo arranque o ejecución',
          ),
      },
      files: engine.files,
      ...(options.jobClock === undefined ? {} : { clock: options.jobClock }),
    })
    return {
      app: built,
      spec,
      database,
      store,
      files: engine.files,
      accounts,
      factors: engine.factors,
      initialAdmin,
      codec: engine.codec,
      recordKeys: engine.recordKeys,
      keys: engine.keys,
      changes: engine.changes,
      migrated: [...engine.migrated, ...usernames.changed],
      consultationLog: () => engine.readAuditStatus(),
      jobsSettled: () => jobs.settled(),
      get keyring() {
        return engine.keyring
      },
      async close() {
        await jobs.stop()
        await built.close()
        await closeRedis()
        await engine.close()
      },
    }
  } catch (error) {
    await closeRedis()
    await engine.close()
    throw error
  }
}
