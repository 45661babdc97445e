// GET /health (D3): no auth, no rate limit; 503 when the database does not answer.
import type { FastifyInstance } from 'fastify'
import { unavailable } from '../../errors.js'

export interface HealthOptions {
  readonly ping: () => Promise<void>
}

export async function healthRoutes(app: FastifyInstance, options: HealthOptions): Promise<void> {
  app.get('/health', { config: { rateLimit: false } }, async () => {
    try {
      await options.ping()
    } catch (error) {
      throw unavailable(error)
    }
    return { success: true, data: { status: 'ok' } }
  })
}
