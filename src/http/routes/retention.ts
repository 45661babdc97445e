// GET /retencion, GET and POST /retencion/{module}/{id}, POST and DELETE .../retener (D41;
// contracts/retention.ts). Thin: the query and the bodies are parsed by records/retention-request.ts;
// who may see or decide on which record is the retention store's to say (db/retention/store.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ModuleSpec, ServiceSpec } from '../../compile/types.js'
import type { ContractFamily } from '../../contracts/route-contract.js'
import type { RetentionRoute } from '../../contracts/retention.js'
import type { RetentionStore } from '../../db/retention/store.js'
import { recordNotFound } from '../../errors.js'
import type { QueryValue } from '../../records/list-query.js'
import {
  parseRetentionDecision,
  parseRetentionHold,
  parseRetentionQuery,
  parseRetentionRelease,
} from '../../records/retention-request.js'
import { actingUser, type AuthContext } from '../auth.js'
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

  type OnRecord = { Params: { module: string; id: string } }
  /** The module of the path, if it declares `retention:` (404 otherwise). */
  const moduleOf = (request: FastifyRequest<OnRecord>): ModuleSpec => {
    const spec = service.moduleByName.get(request.params.module)
    if (spec?.retention === undefined) throw recordNotFound()
    return spec
  }
  const decisionOptions = (request: FastifyRequest<OnRecord>, auth: AuthContext) => ({
    user: actingUser(auth),
    actor: auth.account.id,
    request: requestContextOf(request),
  })

  serveAuthenticated<OnRecord>(app, contracts.routes.decide, async (request, _reply, auth) => {
    const body = parseRetentionDecision(request.body)
    const spec = moduleOf(request)
    const state = await store.decide(spec, request.params.id, body, decisionOptions(request, auth))
    return { success: true, data: state }
  })

  serveAuthenticated<OnRecord>(app, contracts.routes.status, async (request, _reply, auth) => {
    const spec = moduleOf(request)
    return { success: true, data: await store.status(spec, request.params.id, actingUser(auth)) }
  })

  serveAuthenticated<OnRecord>(app, contracts.routes.hold, async (request, _reply, auth) => {
    const body = parseRetentionHold(request.body)
    const spec = moduleOf(request)
    return { success: true, data: await store.hold(spec, request.params.id, body, decisionOptions(request, auth)) }
  })

  serveAuthenticated<OnRecord>(app, contracts.routes.release, async (request, _reply, auth) => {
    const body = parseRetentionRelease(request.body)
    const spec = moduleOf(request)
    return { success: true, data: await store.release(spec, request.params.id, body, decisionOptions(request, auth)) }
  })
}
