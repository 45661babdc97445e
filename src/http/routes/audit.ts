// GET /{audit_path} (D25): the audit trail, for holders of `{audit_path}.ver` (contracts/audit.ts).
import type { FastifyInstance } from 'fastify'
import type { ContractFamily } from '../../contracts/route-contract.js'
import { parseAuditQuery } from '../../records/audit-query.js'
import type { ServiceSpec } from '../../compile/types.js'
import type { RecordStore } from '../../db/records/types.js'
import { serveAuthenticated } from '../contract-route.js'

export interface AuditRoutesOptions {
  readonly contracts: ContractFamily<'trail'>
  readonly service: ServiceSpec
  readonly store: RecordStore
}

export async function auditRoutes(
  app: FastifyInstance,
  { contracts, service, store }: AuditRoutesOptions,
): Promise<void> {
  serveAuthenticated(app, contracts.routes.trail, async (request) => {
    const query = parseAuditQuery(request.query as Record<string, string | string[]>, service.service.list, service)
    const { entries, total } = await store.auditTrail(query)
    return { success: true, data: { entries, total, limit: query.limit, offset: query.offset } }
  })
}
