// A route registered from its contract checks the caller first (src/http/contract-route.ts):
// the token (401), then the contract's permission (403), and only then the body and the query
// the handler reads (400). D20, D21, API reference 5.1-5.2.
import t from 'tap'
import { openApiPath, type RouteContract } from '../../../src/contracts/route-contract.js'
import { serviceContracts } from '../../../src/contracts/service.js'
import { MESSAGES } from '../../../src/errors.js'
import { startTestApi } from '../../helpers/api.js'

/** The contract's path with its `{id}` filled by an id no record has. */
const concretePath = (prefix: string, route: RouteContract, id: string) =>
  openApiPath(prefix, route.url).replace('{id}', id)

t.test('every bearer contract: no token is 401 whatever the body and query carry', async (t) => {
  const api = await startTestApi(t)
  const bearer = serviceContracts(api.service.spec).flatMap((family) =>
    Object.values(family.routes)
      .filter((route) => route.security === 'bearer')
      .map((route) => ({ path: concretePath(family.prefix, route, 'XXX-2026-99999'), route })),
  )
  t.ok(bearer.length > 50, `the contracts were read (${bearer.length})`)
  for (const { path, route } of bearer) {
    const reply = await api.request(route.method, `${path}?limit=nada&filtro_inexistente=1`, {
      ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { body: { campo_que_no_existe: 1 } }),
    })
    t.equal(reply.status, 401, `${route.method} ${path}`)
    t.equal(reply.body.error, MESSAGES.noToken, route.operationId)
  }
})

t.test("a role without the contract's permission is 403 before its body or query is read", async (t) => {
  const api = await startTestApi(t)
  const { token } = await api.userWithRole('consulta')
  const families = serviceContracts(api.service.spec)
  const records = families.find((family) => family.prefix === '/denuncias')
  const create = records?.routes['create']
  if (!t.ok(create, 'the denuncias create contract') || create === undefined || records === undefined) return
  const refused = await api.request('POST', records.prefix, { token, body: { campo_que_no_existe: 1 } })
  t.equal(refused.status, 403, `consulta lacks ${create.permission}`)
  t.equal(refused.body.error, MESSAGES.forbidden)
  const audit = families.find((family) => family.routes['trail'] !== undefined)
  const trail = await api.request('GET', `${audit?.prefix}?accion=no-existe`, { token })
  t.equal(trail.status, 403, 'the audit trail: 403 before its filters are read')
  // With the permission, the same body is the validator's 400.
  const admin = await api.adminToken()
  const invalid = await api.request('POST', records.prefix, { token: admin, body: { campo_que_no_existe: 1 } })
  t.equal(invalid.status, 400)
})
