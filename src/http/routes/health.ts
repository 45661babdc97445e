// GET /health (D3): no auth, no rate limit; 503 when the database does not answer. When the
// service no longer serves the current schema (issue #18 item 5) `data.esquema` says why; when
// stored values failed their integrity check on a read (issue #13 item 5) `data.integridad` says so.
import type { FastifyInstance } from 'fastify'
import { unavailable } from '../../errors.js'

export interface HealthOptions {
  readonly ping: () => Promise<void>
  /** undefined while the service serves the current modules.yaml and database schema. */
  readonly schemaDrift?: () => Promise<object | undefined>
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
    const drift = await options.schemaDrift?.().catch(() => undefined)
    // Still 200: the service serves. The detail tells monitoring that stored data failed its check;
    // which records is for `records audit verify` and the audit trail, not for an unauthenticated page.
    const damaged = options.integrityFailures?.() ?? 0
    return {
      success: true,
      data: {
        status: 'ok',
        ...(drift === undefined ? {} : { esquema: drift }),
        ...(damaged === 0 ? {} : { integridad: { estado: 'error', registros_afectados: damaged } }),
      },
    }
  })
}
