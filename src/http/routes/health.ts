// GET /health (D3): no auth, no rate limit; 503 when the database does not answer. When the
// service no longer serves the current schema `data.esquema` says why; when
// stored values failed their integrity check on a read `data.integridad` says so.
// While the consultation log cannot be written, 503 (F12, D29): an instance that serves reads it
// cannot log must leave the balancer's rotation; entries the database refused are counted (F1).
import type { FastifyInstance } from 'fastify'
import { systemContracts } from '../../contracts/system.js'
import { consultationLogFailing, unavailable } from '../../errors.js'
import { serveRoute } from '../contract-route.js'

/** The consultation log's writer (db/audit/read-audit.ts ReadAuditStatus). */
export interface ConsultationLogHealth {
  readonly unwritten: number
  readonly refused: number
  readonly failing?: { readonly since: string; readonly code: string }
}

export interface HealthOptions {
  readonly ping: () => Promise<void>
  /** undefined while the service serves the current modules.yaml and database schema. */
  readonly schemaDrift?: () => Promise<object | undefined>
  /** Damaged records this instance has read since it started. */
  readonly integrityFailures?: () => number
  readonly consultationLog?: () => ConsultationLogHealth
}

export async function healthRoutes(app: FastifyInstance, options: HealthOptions): Promise<void> {
  const contract = systemContracts.routes.health
  serveRoute(
    app,
    contract,
    async (_request, reply) => {
      try {
        await options.ping()
      } catch (error) {
        throw unavailable(error)
      }
      const log = options.consultationLog?.()
      if (log?.failing !== undefined && log.unwritten > 0) {
        // Answered here: the error handler keeps a 5xx's details for the log, and monitoring needs this one.
        const failing = consultationLogFailing(log.unwritten, log.failing.since, log.failing.code)
        return reply.code(failing.statusCode).send({ success: false, error: failing.message, details: failing.details })
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
          ...(log === undefined || log.refused === 0
            ? {}
            : { auditoria: { estado: 'error', entradas_rechazadas: log.refused } }),
        },
      }
    },
    { config: { rateLimit: false } },
  )
}
