// GET /health (D3): no auth, no rate limit; 503 when the database does not answer; whether stored
// values failed their integrity check on a read (issue #13 item 5).
import type { FastifyInstance } from 'fastify'
import { unavailable } from '../../errors.js'

export interface HealthOptions {
  readonly ping: () => Promise<void>
  /** Damaged records this instance has read since it started (issue #13 item 5). */
  readonly integrityFailures?: () => number
}

export async function healthRoutes(app: FastifyInstance, options: HealthOptions): Promise<void> {
  app.get('/health', { config: { rateLimit: false } }, async () => {
    try {
      await options.ping()
    } catch (error) {
      throw unavailable(error)
    }
    // Still 200: the service serves. The detail tells monitoring that stored data failed its check;
    // which records is for `records audit verify` and the audit trail, not for an unauthenticated page.
    const damaged = options.integrityFailures?.() ?? 0
    if (damaged === 0) return { success: true, data: { status: 'ok' } }
    return { success: true, data: { status: 'ok', integridad: { estado: 'error', registros_afectados: damaged } } }
  })
}
