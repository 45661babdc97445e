// D24 on @fastify/rate-limit: requests per client address per minute and per
// bearer token per hour, counted together; `/health` exempt; the docs page and /openapi.json on
// their own looser per-address limit.
// The plugin counts (in Redis through its `redis` option when REDIS_URL is set, else in its own
// in-process store); what one plugin hook cannot express is done here, on `createRateLimit`, its
// documented manual limiter: two limits for one request, the headers of the tighter one, the
// 429 in the service's envelope, clock-aligned windows (keyGenerator), and per-process counting
// while Redis is away. docs/security.md explains each choice.
import { hash } from 'node:crypto'
import fastifyRateLimit, { normalizeIP } from '@fastify/rate-limit'
import RedisStore from '@fastify/rate-limit/store/RedisStore.js'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { Redis } from 'ioredis'
import { rateLimited } from '../errors.js'
import { clockStore } from './rate-limit-store.js'

export interface RateLimitOptions {
  readonly ipPerMinute: number
  readonly tokenPerHour: number
  /** The docs page and /openapi.json: their own budget per address, apart from the API's. */
  readonly docsPerMinute: number
  readonly clock: () => Date
  /** Counters shared by every instance (REDIS_URL): handed to the plugin's `redis` option. */
  readonly redis?: Redis
  /** Redis did not answer: this request was counted in process memory instead. */
  readonly onStoreError?: (error: unknown) => void
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** 'docs': the route counts against the docs page's limit, not the API's. */
    rateLimitGroup?: 'docs'
  }
}

/** The address a limit counts: Fastify's `request.ip` (trustProxy), an IPv6 client by its /64. */
export const clientAddress = (request: FastifyRequest): string => normalizeIP(request.ip)

interface LimitSpec {
  readonly name: string
  readonly max: number
  readonly windowMs: number
  /** What is counted; undefined: this limit does not apply to the request. */
  readonly subject: (request: FastifyRequest) => string | undefined
}

interface Count {
  readonly limit: number
  readonly remaining: number
  readonly resetSeconds: number
  readonly exceeded: boolean
}

/** The request carries a bearer token: the token's limit applies to it as well. */
const hasBearer = (request: FastifyRequest): boolean => {
  const header = request.headers.authorization
  return typeof header === 'string' && header.startsWith('Bearer ')
}

/** The counter key of a bearer token: its hash, so no token is a key in Redis. */
const tokenSubject = (request: FastifyRequest): string | undefined =>
  hasBearer(request) ? hash('sha256', request.headers.authorization as string, 'base64url') : undefined

/**
 * The plugin's Redis store under `rate-limit:`, keeping that prefix for the limiters below. The
 * plugin's own store appends the route's method and URL for each limiter, which manual limiters
 * do not have (keys read `rate-limit:undefinedundefined-ip:...`); ours name their limiter
 * already (`ip:`, `token:`, `docs:`), so a child is the same store.
 */
function redisStore(redis: Redis) {
  return class extends RedisStore {
    constructor() {
      super(false, false, redis, 'rate-limit:')
    }

    override child() {
      return this
    }
  }
}

async function rateLimitPlugin(app: FastifyInstance, options: RateLimitOptions): Promise<void> {
  const now = () => options.clock().getTime()
  await app.register(fastifyRateLimit, {
    global: false, // no per-route hook of its own: the hook below runs the limiters
    // In process: at most 20,000 keys (clients and tokens of the last two windows), least recent first out.
    ...(options.redis === undefined ? { cache: 20_000 } : { store: redisStore(options.redis) }),
  })
  const fallback = new (clockStore(options.clock))()

  // Fixed windows aligned to the clock (D24): the key names its window's start, so a new window
  // is a new key and the count starts over exactly at the window's end, on the service's clock;
  // x-ratelimit-reset is the time to that end. The stores' own expiry (two windows from a key's
  // first hit) only clears old keys: it never decides a reset, so instances whose clocks differ
  // a little, or a test clock, agree with the key's name.
  const keyOf = (spec: LimitSpec, subject: string, at: number) =>
    `${spec.name}:${subject}@${Math.floor(at / spec.windowMs) * spec.windowMs}`
  const resetSecondsOf = (spec: LimitSpec, key: string) =>
    Math.max(0, Math.ceil((Number(key.slice(key.lastIndexOf('@') + 1)) + spec.windowMs - now()) / 1000))
  const limiter = (spec: LimitSpec) => ({
    spec,
    check: app.createRateLimit({
      max: spec.max,
      keyGenerator: (request) => keyOf(spec, spec.subject(request) ?? '', now()),
      timeWindow: 2 * spec.windowMs,
    }),
  })
  const address = limiter({ name: 'ip', max: options.ipPerMinute, windowMs: 60_000, subject: clientAddress })
  const token = limiter({ name: 'token', max: options.tokenPerHour, windowMs: 3_600_000, subject: tokenSubject })
  const docs = limiter({ name: 'docs', max: options.docsPerMinute, windowMs: 60_000, subject: clientAddress })

  /** Redis away: each instance still limits on its own, degraded but never unlimited. */
  const countInProcess = async (spec: LimitSpec, request: FastifyRequest): Promise<Count> => {
    const key = keyOf(spec, spec.subject(request) ?? '', now())
    const current = await new Promise<number>((resolve) =>
      fallback.incr(key, (_error, result) => resolve(result?.current ?? 0), 2 * spec.windowMs, spec.max),
    )
    const remaining = Math.max(0, spec.max - current)
    return { limit: spec.max, remaining, resetSeconds: resetSecondsOf(spec, key), exceeded: current > spec.max }
  }
  const count = async ({ spec, check }: ReturnType<typeof limiter>, request: FastifyRequest): Promise<Count> => {
    let result: Awaited<ReturnType<typeof check>>
    try {
      result = await check(request)
    } catch (error) {
      options.onStoreError?.(error)
      return countInProcess(spec, request)
    }
    // isAllowed only comes from an allow list, and none is configured.
    if (result.isAllowed) return { limit: spec.max, remaining: spec.max, resetSeconds: 0, exceeded: false }
    const { key, max, remaining, isExceeded } = result
    return { limit: max, remaining, resetSeconds: resetSecondsOf(spec, key), exceeded: isExceeded }
  }

  app.addHook('onRequest', async (request, reply) => {
    const config = request.routeOptions.config
    if (config?.rateLimit === false) return
    const limits = config?.rateLimitGroup === 'docs' ? [docs] : hasBearer(request) ? [address, token] : [address]
    const counts = await Promise.all(limits.map((l) => count(l, request)))
    // The tighter limit: the one with fewer requests left; once exceeded, the one that frees last.
    const exceeded = counts.filter((c) => c.exceeded).sort((a, b) => b.resetSeconds - a.resetSeconds)
    const shown = exceeded[0] ?? counts.reduce((a, b) => (b.remaining < a.remaining ? b : a))
    void reply.headers({
      'x-ratelimit-limit': String(shown.limit),
      'x-ratelimit-remaining': String(shown.remaining),
      'x-ratelimit-reset': String(shown.resetSeconds),
    })
    if (exceeded[0] !== undefined) throw rateLimited(Math.max(1, exceeded[0].resetSeconds))
  })
}

export default fp(rateLimitPlugin, { name: 'records-rate-limit' })
