// GET /health (D3): no auth, no rate limit; 503 when the database does not answer. When the
// service no longer serves the current schema (issue #18 item 5) `data.esquema` says why.
import type { FastifyInstance } from 'fastify'
import { unavailable } from '../../errors.js'

export interface HealthOptions {
  readonly ping: () => Promise<void>
  /** undefined while the service serves the current modules.yaml and database schema. */
  readonly schemaDrift?: () => Promise<object | undefined>
}

export async function healthRoutes(app: FastifyInstance, options: HealthOptions): Promise<void> {
  app.get('/health', { config: { rateLimit: false } }, async () => {
    try {
      await options.ping()
    } catch (error) {
      throw unavailable(error)
    }
    const drift = await options.schemaDrift?.().catch(() => undefined)
    return { success: true, data: { status: 'ok', ...(drift === undefined ? {} : { esquema: drift }) } }
  })
}
