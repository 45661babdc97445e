// GET /retencion and POST /retencion/{module}/{id} (D41; contracts/retention.ts). Thin: the query
// and the body are parsed by records/retention-request.ts; who may see or decide on which record
// is the retention store's to say (db/retention/store.ts).
import type { FastifyInstance } from 'fastify'
import type { ServiceSpec } from '../../compile/types.js'
import type { ContractFamily } from '../../contracts/route-contract.js'
import type { RetentionRoute } from '../../contracts/retention.js'
import type { RetentionStore } from '../../db/retention/store.js'
import { recordNotFound } from '../../errors.js'
import type { QueryValue } from '../../records/list-query.js'
import { parseRetentionDecision, parseRetentionQuery } from '../../records/retention-request.js'
import { actingUser } from '../auth.js'
import { serveAuthenticated } from '../contract-route.js'
import { requestContextOf } from '../motivo.js'

export interface RetentionRoutesOptions {
  readonly contracts: ContractFamily<RetentionRoute>
  readonly service: ServiceSpec
  readonly store: RetentionStore
}

export async function retentionRoutes(
  app: FastifyInstance,
  { contracts, service, store }: RetentionRoutesOptions,
): Promise<void> {
  serveAuthenticated(app, contracts.routes.queue, async (request, _reply, auth) => {
    const query = parseRetentionQuery(request.query as Record<string, QueryValue>, service)
    const { entries, total } = await store.queue(query.modules, actingUser(auth), query)
    return { success: true, data: { entries, total } }
  })

  serveAuthenticated<{ Params: { module: string; id: string } }>(
    app,
    contracts.routes.decide,
    async (request, _reply, auth) => {
      const body = parseRetentionDecision(request.body)
      const spec = service.moduleByName.get(request.params.module)
      if (spec?.retention === undefined) throw recordNotFound()
      const state = await store.decide(spec, request.params.id, body, {
        user: actingUser(auth),
        actor: auth.account.id,
        request: requestContextOf(request),
      })
      return { success: true, data: state }
    },
  )
}
