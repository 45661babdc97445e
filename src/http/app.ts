// Assembles the Fastify app from the compiled service: builds, never listens.
import type { AuditTail } from '../db/audit/tail.js'
import type { EventTicketStore } from '../db/accounts/event-tickets.js'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import type { ServiceSpec } from '../compile/types.js'
import type { AccountStore } from '../db/accounts/store.js'
import type { PasskeyChallengeStore } from '../db/accounts/passkey-challenges.js'
import type { SecondFactorStore } from '../db/accounts/second-factors.js'
import type { LoginFailureStore } from '../db/accounts/login-failures.js'
import type { RecordStore } from '../db/records/types.js'
import type { FileStore } from '../db/files/store.js'
import type { RetentionStore } from '../db/retention/store.js'
import type { SubjectStore } from '../db/records/subjects.js'
import type { AccountRules } from '../records/account-rules.js'
import type { Redis } from 'ioredis'
import { queryTooLong, routeNotFound } from '../errors.js'
import authPlugin from './auth.js'
import corsPlugin from './cors.js'
import { createBodyAjv } from '../records/body-validator.js'
import { auditContracts } from '../contracts/audit.js'
import { eventContracts } from '../contracts/events.js'
import { fileContracts } from '../contracts/files.js'
import { recordContracts } from '../contracts/records.js'
import { retentionContracts } from '../contracts/retention.js'
import { subjectContracts } from '../contracts/subjects.js'
import { DOCS_PREFIX } from '../contracts/system.js'
import { secondFactorContracts } from '../contracts/second-factor.js'
import { passkeyContracts } from '../contracts/passkey.js'
import { sessionContracts } from '../contracts/session.js'
import { buildOpenApiDocument } from '../openapi/document.js'
import { handleError } from './error-handler.js'
import { loggerOptions, requestIdOf } from './logging.js'
import nulGuard from './nul-guard.js'
import { motivoOf } from './motivo.js'
import { createFailedLogins } from './failed-logins.js'
import { createLoginThrottle, type LoginProtectionSettings } from './login-throttle.js'
import rateLimitPlugin from './rate-limit.js'
import securityHeaders from './security-headers.js'
import { auditRoutes } from './routes/audit.js'
import { docsRoutes } from './routes/docs.js'
import { consoleRoutes } from './routes/console.js'
import { moduleViewRoutes } from './routes/module-views.js'
import { moduleViewContracts } from '../contracts/module-views.js'
import { moduleDefinitionRoutes } from './routes/module-definitions.js'
import { moduleDefinitionContracts } from '../contracts/module-definitions.js'
import { fileRoutes } from './routes/files.js'
import { healthRoutes, type HealthOptions } from './routes/health.js'
import { recordRoutes } from './routes/records.js'
import { secondFactorRoutes } from './routes/second-factor.js'
import { retentionRoutes } from './routes/retention.js'
import { subjectRoutes } from './routes/subjects.js'
import { passkeyRoutes, type RelyingParty } from './routes/passkey.js'
import { sessionRoutes } from './routes/session.js'
import { DEFAULT_LIVE_LIMITS, eventRoutes, type LiveFeedLimits } from './routes/events.js'
import { createLiveFeed } from './live/feed.js'
import { fastifyTrustProxy, type TrustProxy } from './trust-proxy.js'

export interface AppDeps {
  readonly store: RecordStore
  /** The retention queue and its decisions (D41). */
  readonly retention: RetentionStore
  /** Evidence files and their custody (D43). */
  readonly files: FileStore
  /** A person's records across modules (D41, GET /interesados). */
  readonly subjects: SubjectStore
  readonly accounts: AccountStore
  /** Each account's second factors and recovery codes (D42). */
  readonly factors: SecondFactorStore
  /** Passkeys (D42): where ceremonies' challenges wait, and the relying party they belong to. */
  readonly passkeys: { readonly challenges: PasskeyChallengeStore; readonly relyingParty: RelyingParty }
  /** Canonical usernames and the password policy, for every account write. */
  readonly accountRules: AccountRules
  readonly jwtSecret: string
  readonly basePath: string
  readonly rateLimits: { readonly ipPerMinute: number; readonly tokenPerHour: number; readonly docsPerMinute?: number }
  /** REDIS_URL's client: rate-limit counters shared by every instance. */
  readonly redis?: Redis
  /** Redis did not answer a rate-limit count: counted per process for this request. */
  readonly onRedisError?: (error: unknown) => void
  /** Proxies trusted to name the client's address. */
  readonly trustProxy: TrustProxy
  readonly logger: FastifyServerOptions['logger']
  readonly clock: () => Date
  readonly ping: () => Promise<void>
  /** Whether the service still serves the current schema, for /health. */
  readonly schemaDrift?: () => Promise<object | undefined>
  /** The consultation log's writer, for /health (F1, F12). */
  readonly consultationLog?: HealthOptions['consultationLog']
  /** Largest accepted body in bytes (D7: 1 MiB). */
  readonly bodyLimit?: number
  /** Browser origins allowed to call the API (CORS_ORIGINS); empty: no CORS headers at all. */
  readonly corsOrigins?: readonly string[]
  /** The service's version, shown in the OpenAPI document. */
  readonly version?: string
  /** Slow clients: whole-request and idle-socket timeouts in milliseconds. */
  readonly timeouts?: { readonly requestMs: number; readonly connectionMs: number }
  /** Longest accepted query string. */
  readonly maxQueryLength?: number
  /** Where failed logins are counted (the database or Redis), and the policy. */
  readonly loginFailures: LoginFailureStore
  readonly loginProtection?: LoginProtectionSettings
  /** The browser console's built files (D44, D46); undefined: no console (CONSOLE_ENABLED=false, 404). */
  readonly console?: { readonly dir: string }
  /** The live feed's database (its audit tail, notifications, tickets) and limits. */
  readonly events: {
    /**
     * The audit tail the feed streams (db/audit/tail.ts) and the tickets browsers redeem
     * (db/accounts/event-tickets.ts).
     */
    readonly tail: AuditTail
    readonly tickets: EventTicketStore
    readonly limits?: Partial<LiveFeedLimits>
    /** How often the feed looks at the audit unprompted (default: SQLite 100 ms, PostgreSQL 2 s). */
    readonly pollMs?: number
  }
}

export async function buildApp(service: ServiceSpec, deps: AppDeps): Promise<FastifyInstance> {
  const requestMs = deps.timeouts?.requestMs ?? 30_000
  const connectionMs = deps.timeouts?.connectionMs ?? 72_000
  const app = Fastify({
    logger: loggerOptions(deps.logger),
    trustProxy: fastifyTrustProxy(deps.trustProxy),
    bodyLimit: deps.bodyLimit ?? 1024 * 1024,
    // Slowloris: the whole request (headers and body) must arrive within requestTimeout, and
    // Node checks that on an interval, 30 s by default: check at a quarter of the timeout.
    requestTimeout: requestMs,
    connectionTimeout: connectionMs,
    keepAliveTimeout: connectionMs,
    http: {
      connectionsCheckingInterval: Math.max(50, Math.min(30_000, Math.floor(requestMs / 4))),
      headersTimeout: requestMs,
    },
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    return503OnClosing: true,
    requestIdHeader: false,
    genReqId: requestIdOf,
    // A malformed URL (`/api/%`) is refused before routing, outside setErrorHandler: without
    // this it left as Fastify's own `{error, code, message, statusCode}`.
    frameworkErrors: handleError,
  })
  app.setErrorHandler(handleError)
  app.setNotFoundHandler(() => {
    throw routeNotFound()
  })
  const maxQueryLength = deps.maxQueryLength ?? 4096
  app.addHook('onRequest', (request, _reply, done) => {
    const at = request.url.indexOf('?')
    if (at >= 0 && request.url.length - at - 1 > maxQueryLength) throw queryTooLong(maxQueryLength)
    done()
  })

  // An empty body with a JSON content type is "no body" (DELETE from many clients), not an error.
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  // Bodies are JSON only: text/plain, like every other type, is 415 (Fastify parses it by default).
  app.removeContentTypeParser('text/plain')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' || (typeof body === 'string' && body.trim() === '')) done(null, undefined)
    else parseJson(request, body as string, done)
  })

  // First hooks of every request: even a 429 or a 404 carries its id and the security headers.
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id)
    done()
  })
  // Personal data and tokens must not sit in a browser's or a proxy's cache: every answer but the
  // public ones (health, the OpenAPI document, the docs page) says no-store.
  const prefix = deps.basePath === '/' ? '' : deps.basePath
  const publicPaths = new Set([`${prefix}/health`, `${prefix}/openapi.json`])
  app.addHook('onRequest', (request, reply, done) => {
    const path = request.url.split('?', 1)[0] ?? ''
    if (!publicPaths.has(path) && !path.startsWith(`${prefix}${DOCS_PREFIX}`))
      void reply.header('cache-control', 'no-store')
    done()
  })
  // The docs page is plain HTTP on many intranets: no upgrade-insecure-requests (API reference 1: HTTP or HTTPS).
  await app.register(securityHeaders, {
    helmet: { contentSecurityPolicy: { directives: { 'upgrade-insecure-requests': null } } },
  })
  await app.register(corsPlugin, { origins: deps.corsOrigins ?? [] })

  await app.register(rateLimitPlugin, {
    ipPerMinute: deps.rateLimits.ipPerMinute,
    tokenPerHour: deps.rateLimits.tokenPerHour,
    docsPerMinute: deps.rateLimits.docsPerMinute ?? 300,
    clock: deps.clock,
    ...(deps.redis === undefined ? {} : { redis: deps.redis }),
    ...(deps.onRedisError === undefined ? {} : { onStoreError: deps.onRedisError }),
  })
  await app.register(nulGuard)
  // X-Motivo is accepted on every request: one too long is refused before any work.
  app.addHook('preHandler', (request, _reply, done) => {
    motivoOf(request)
    done()
  })
  await app.register(authPlugin, { service, accounts: deps.accounts, secret: deps.jwtSecret })

  const ajv = createBodyAjv()
  await app.register(
    async (api) => {
      const schemaDrift = deps.schemaDrift === undefined ? {} : { schemaDrift: deps.schemaDrift }
      const consultationLog = deps.consultationLog === undefined ? {} : { consultationLog: deps.consultationLog }
      await api.register(healthRoutes, {
        ping: deps.ping,
        integrityFailures: () => deps.store.integrityFailures(),
        ...schemaDrift,
        ...consultationLog,
      })
      const document = () =>
        buildOpenApiDocument(service, { basePath: deps.basePath, version: deps.version ?? '0.0.0' })
      await api.register(docsRoutes, { document, basePath: deps.basePath })
      if (deps.console !== undefined)
        await api.register(consoleRoutes, { dir: deps.console.dir, basePath: deps.basePath })
      const login = deps.loginProtection ?? {
        maxFailures: 5,
        delaySeconds: 30,
        maxDelaySeconds: 900,
        alertFailures: 100,
        windowSeconds: 86_400,
      }
      const throttle = createLoginThrottle({
        store: deps.loginFailures,
        clock: deps.clock,
        maxFailures: login.maxFailures,
        delayMs: login.delaySeconds * 1000,
        maxDelayMs: login.maxDelaySeconds * 1000,
        alertFailures: login.alertFailures,
        windowMs: login.windowSeconds * 1000,
      })
      const failures = createFailedLogins(deps.store, service.accounts.module, throttle)
      await api.register(sessionRoutes, {
        contracts: sessionContracts(service),
        accounts: deps.accounts,
        store: deps.store,
        accountsSpec: service.accounts,
        rules: deps.accountRules,
        clock: deps.clock,
        throttle,
        failures,
        factors: deps.factors,
      })
      await api.register(secondFactorRoutes, {
        contracts: secondFactorContracts,
        factors: deps.factors,
        store: deps.store,
        accountsSpec: service.accounts,
        throttle,
        failures,
      })
      await api.register(passkeyRoutes, {
        contracts: passkeyContracts(service),
        factors: deps.factors,
        challenges: deps.passkeys.challenges,
        accounts: deps.accounts,
        store: deps.store,
        accountsSpec: service.accounts,
        throttle,
        failures,
        relyingParty: deps.passkeys.relyingParty,
        clock: deps.clock,
      })
      await api.register(moduleViewRoutes, { contracts: moduleViewContracts, modules: service.modules })
      await api.register(moduleDefinitionRoutes, {
        contracts: moduleDefinitionContracts(service),
        service,
        accounts: deps.accounts,
        store: deps.store,
      })
      const audit = auditContracts(service)
      await api.register(auditRoutes, { prefix: audit.prefix, contracts: audit, service, store: deps.store })
      const retention = retentionContracts(service)
      await api.register(retentionRoutes, {
        prefix: retention.prefix,
        contracts: retention,
        service,
        store: deps.retention,
      })
      const subjects = subjectContracts(service)
      await api.register(subjectRoutes, { prefix: subjects.prefix, contracts: subjects, service, store: deps.subjects })
      const feed = createLiveFeed({
        tail: deps.events.tail,
        ...(deps.events.pollMs === undefined ? {} : { pollMs: deps.events.pollMs }),
        onError: (error) => api.log.error({ err: error }, 'flujo de eventos: no se pudo leer la auditoría'),
      })
      // A write answered here reaches this instance's streams at once, without waiting for the poll.
      api.addHook('onResponse', (request, _reply, done) => {
        if (request.method !== 'GET' && request.method !== 'HEAD') feed.wake()
        done()
      })
      const events = eventContracts(service)
      await api.register(eventRoutes, {
        prefix: events.prefix,
        contracts: events,
        service,
        store: deps.store,
        tail: deps.events.tail,
        feed,
        tickets: deps.events.tickets,
        clock: deps.clock,
        limits: { ...DEFAULT_LIVE_LIMITS, ...deps.events.limits },
      })
      for (const spec of service.modules) {
        const files = fileContracts(spec)
        if (files !== undefined)
          await api.register(fileRoutes, { prefix: files.prefix, contracts: files, spec, service, store: deps.files })
        const contracts = recordContracts(spec, service)
        await api.register(recordRoutes, {
          prefix: contracts.prefix,
          contracts,
          spec,
          service,
          store: deps.store,
          ajv,
          accountRules: deps.accountRules,
          factors: deps.factors,
        })
      }
    },
    { prefix: deps.basePath === '/' ? '' : deps.basePath },
  )
  return app
}
