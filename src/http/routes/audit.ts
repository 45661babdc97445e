// GET /{audit_path} (D25): the audit trail, for holders of `{audit_path}.ver`.
import type { FastifyInstance } from 'fastify'
import { parseAuditQuery } from '../../records/audit-query.js'
import type { ServiceSpec } from '../../compile/types.js'
import type { RecordStore } from '../../db/records/types.js'
import { requirePermission } from '../auth.js'

export interface AuditRoutesOptions {
  readonly service: ServiceSpec
  readonly store: RecordStore
}

export async function auditRoutes(app: FastifyInstance, { service, store }: AuditRoutesOptions): Promise<void> {
  app.get('/', async (request) => {
    const auth = await app.authenticate(request)
    requirePermission(auth, service.audit.permission)
    const query = parseAuditQuery(request.query as Record<string, string | string[]>, service.service.list, service)
    const { entries, total } = await store.auditTrail(query)
    return { success: true, data: { entries, total, limit: query.limit, offset: query.offset } }
  })
}
