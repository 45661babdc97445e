// Both limits of spec section 8 at once (D24): requests per IP per minute and per token
// per hour, in fixed windows aligned to the clock. Headers describe the tighter limit.
// (@fastify/rate-limit applies one limit per route; D24 needs two counted together.)
import { hash } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { rateLimited } from '../errors.js'

export interface WindowHit {
  readonly count: number
  /** Epoch milliseconds at which the window resets. */
  readonly resetAt: number
}

/** Where counts live: process memory here; a shared store serves many instances (issue #8). */
export interface CounterStore {
  hit(key: string, windowMs: number, now: number): Promise<WindowHit>
}

export function createMemoryCounterStore(): CounterStore {
  const windows = new Map<number, { start: number; counts: Map<string, number> }>()
  return {
    async hit(key, windowMs, now) {
      const start = Math.floor(now / windowMs) * windowMs
      let window = windows.get(windowMs)
      // Fixed windows: a new window forgets every key of the last one, so memory stays bounded.
      if (window === undefined || window.start !== start) {
        window = { start, counts: new Map() }
        windows.set(windowMs, window)
      }
      const count = (window.counts.get(key) ?? 0) + 1
      window.counts.set(key, count)
      return { count, resetAt: start + windowMs }
    },
  }
}

export interface RateLimitOptions {
  readonly ipPerMinute: number
  readonly tokenPerHour: number
  readonly store: CounterStore
  readonly clock: () => Date
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: exempt from rate limits (/health, D24). */
    rateLimit?: boolean
  }
}

interface Verdict {
  readonly limit: number
  readonly remaining: number
  readonly resetAt: number
  /** The request that brings the count to the limit passes; the next one does not. */
  readonly over: boolean
}

const verdict = (limit: number, hit: WindowHit): Verdict =>
  ({ limit, remaining: Math.max(0, limit - hit.count), resetAt: hit.resetAt, over: hit.count > limit })
/** The counter key of a bearer token: its hash, so no token is a key in Redis. */
const tokenKey = (header: string): string => hash('sha256', header, 'base64url')

async function rateLimitPlugin(app: FastifyInstance, options: RateLimitOptions): Promise<void> {
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.routeOptions.config?.rateLimit === false) return
    const now = options.clock().getTime()
    const verdicts = [verdict(options.ipPerMinute, await options.store.hit(`ip:${request.ip}`, 60_000, now))]
    const header = request.headers.authorization
    if (typeof header === 'string' && header.startsWith('Bearer '))
      verdicts.push(verdict(options.tokenPerHour, await options.store.hit(`token:${tokenKey(header)}`, 3_600_000, now)))
    const tightest = verdicts.reduce((a, b) => (b.remaining < a.remaining ? b : a))
    const resetSeconds = Math.max(0, Math.ceil((tightest.resetAt - now) / 1000))
    void reply.headers({
      'x-ratelimit-limit': String(tightest.limit),
      'x-ratelimit-remaining': String(tightest.remaining),
      'x-ratelimit-reset': String(resetSeconds),
    })
    const exceeded = verdicts.find((v) => v.over)
    if (exceeded !== undefined) throw rateLimited(Math.max(1, Math.ceil((exceeded.resetAt - now) / 1000)))
  })
}

export default fp(rateLimitPlugin, { name: 'records-rate-limit' })
