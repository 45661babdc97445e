// The Redis store of @fastify/rate-limit, which the package ships without types (rate-limit.ts).
declare module '@fastify/rate-limit/store/RedisStore.js' {
  import type { FastifyRateLimitStore } from '@fastify/rate-limit'
  import type { Redis } from 'ioredis'

  class RedisStore implements FastifyRateLimitStore {
    constructor(continueExceeding: boolean, exponentialBackoff: boolean, redis: Redis, key: string)
    incr(...args: Parameters<FastifyRateLimitStore['incr']>): void
    child(...args: Parameters<FastifyRateLimitStore['child']>): FastifyRateLimitStore
  }
  export default RedisStore
}
