// GET /interesados (D41; contracts/subjects.ts): where a person's identifier is held. Thin: the
// query is parsed by records/subject-query.ts; what the caller finds, the motivo it needs and the
// consultation entries are the subject store's (db/records/subjects.ts).
import type { FastifyInstance } from 'fastify'
import type { ServiceSpec } from '../../compile/types.js'
import type { ContractFamily } from '../../contracts/route-contract.js'
import type { SubjectRoute } from '../../contracts/subjects.js'
import type { SubjectStore } from '../../db/records/subjects.js'
import type { QueryValue } from '../../records/list-query.js'
import { parseSubjectQuery } from '../../records/subject-query.js'
import { actingUser } from '../auth.js'
import { serveAuthenticated } from '../contract-route.js'
import { requestContextOf } from '../motivo.js'

export interface SubjectRoutesOptions {
  readonly contracts: ContractFamily<SubjectRoute>
  readonly service: ServiceSpec
  readonly store: SubjectStore
}

export async function subjectRoutes(
  app: FastifyInstance,
  { contracts, service, store }: SubjectRoutesOptions,
): Promise<void> {
  serveAuthenticated(app, contracts.routes.find, async (request, _reply, auth) => {
    const query = parseSubjectQuery(request.query as Record<string, QueryValue>, service.service.list)
    const { entries, total } = await store.find(service.modules, query, {
      user: actingUser(auth),
      actor: auth.account.id,
      request: requestContextOf(request),
    })
    return { success: true, data: { entries, total, limit: query.limit, offset: query.offset } }
  })
}
