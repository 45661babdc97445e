// The route contracts (src/contracts/): each endpoint declared once, with the answers its checks can give.
import { join } from 'node:path'
import t from 'tap'
import { compileService } from '../../../src/compile/service.js'
import { loadModulesConfig } from '../../../src/config/load.js'
import { lazily, openApiPath, type RouteContract } from '../../../src/contracts/route-contract.js'
import { serviceContracts } from '../../../src/contracts/service.js'

const ROOT = new URL('../../../', import.meta.url).pathname
const service = compileService(loadModulesConfig(join(ROOT, 'modules.yaml')))
const families = serviceContracts(service)
const routes = families.flatMap((family) =>
  Object.values(family.routes).map((route) => ({ family, route: route as RouteContract })),
)

t.test('every endpoint is declared once: one operationId and one method and path each', async (t) => {
  t.ok(routes.length > 50, `the contracts were read (${routes.length})`)
  const ids = routes.map(({ route }) => route.operationId)
  t.same(
    ids.filter((id, i) => ids.indexOf(id) !== i),
    [],
    'no operationId twice',
  )
  const keys = routes.map(({ family, route }) => `${route.method} ${openApiPath(family.prefix, route.url)}`)
  t.same(
    keys.filter((key, i) => keys.indexOf(key) !== i),
    [],
    'no method and path twice',
  )
})

t.test('a contract names the errors its checks give (D7, D20, API reference 5.2)', async (t) => {
  for (const { route } of routes) {
    if (route.security !== 'public') t.ok(route.errors.includes('Unauthorized'), `${route.operationId}: 401`)
    if (route.permission !== undefined) {
      t.equal(route.security, 'bearer', `${route.operationId}: a permission needs a token`)
      t.ok(route.errors.includes('Forbidden'), `${route.operationId}: 403`)
    }
    if (route.body !== undefined)
      for (const error of ['BadRequest', 'TooLarge', 'UnsupportedMediaType'] as const)
        t.ok(route.errors.includes(error), `${route.operationId}: ${error}`)
  }
})

t.test('a module route carries the permission compile/ gave it, and its serializers', async (t) => {
  for (const spec of service.modules) {
    const family = families.find((f) => f.prefix === `/${spec.name}`)
    if (!t.ok(family, spec.name) || family === undefined) continue
    for (const compiled of spec.routes) {
      const route = family.routes[compiled.operation]
      t.equal(route?.permission, compiled.permission, `${spec.name} ${compiled.operation}`)
      t.equal(route?.url, compiled.url)
    }
    t.equal(family.routes['list']?.responses[200]?.serializer, spec.schemas.responses.list)
    t.equal(family.routes['create']?.responses[201]?.serializer, spec.schemas.responses.one)
    t.equal(family.routes['create']?.body?.validates, spec.schemas.create, 'the body the validator checks')
    t.equal(family.routes['update']?.body?.validates, spec.schemas.update)
    t.equal(family.routes['history']?.responses[200]?.serializer, undefined, 'history entries vary: JSON.stringify')
  }
})

t.test('lazily computes once, on first use', async (t) => {
  let calls = 0
  const value = lazily(() => ++calls)
  t.equal(calls, 0)
  t.equal(value(), 1)
  t.equal(value(), 1)
  t.equal(calls, 1)
})
