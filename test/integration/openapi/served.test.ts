// GET /openapi.json and /docs (D3): served without a token, and the document and the
// router agree: every route the server registers is documented and every documented path is served.
import t from 'tap'
import { buildOpenApiDocument } from '../../../src/openapi/document.js'
import { startTestApi } from '../../helpers/api.js'

const METHODS = ['get', 'post', 'put', 'delete'] as const

/** `METHOD /path` of every route in Fastify's printRoutes tree (HEAD is Fastify's automatic twin of GET). */
function registeredRoutes(tree: string): Set<string> {
  const routes = new Set<string>()
  const stack: string[] = []
  for (const line of tree.split('\n')) {
    const match = /^([│├└─\s]*?[├└]── )(\S.*) \(([A-Z, ]+)\)$/.exec(line)
    if (match === null) continue
    const depth = ((match[1] ?? '').length - 4) / 4
    stack.length = depth
    stack.push(match[2] ?? '')
    const path = stack.join('').replace(/\/+$/, '') || '/'
    for (const method of (match[3] ?? '').split(', ')) if (method !== 'HEAD') routes.add(`${method} ${path}`)
  }
  return routes
}

t.test('D3: the served document is buildOpenApiDocument of the running service, without a token', async (t) => {
  const api = await startTestApi(t)
  const reply = await api.request('GET', '/openapi.json')
  t.equal(reply.status, 200)
  t.match(reply.headers['content-type'], /^application\/json/)
  t.same(
    reply.body,
    JSON.parse(
      JSON.stringify(buildOpenApiDocument(api.service.spec, { basePath: '/api', version: reply.body.info.version })),
    ),
  )
  t.match(reply.body.info.version, /^\d+\.\d+\.\d+/, 'the version of package.json')
  t.ok(reply.headers['x-request-id'], 'a request id like every answer')
})

t.test('every registered route is documented, and every documented path is served', async (t) => {
  const api = await startTestApi(t)
  const app = api.service.app
  const doc = (await api.request('GET', '/openapi.json')).body
  const documented = new Set<string>()
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>))
    for (const method of METHODS)
      if (item[method] !== undefined) documented.add(`${method.toUpperCase()} /api${path.replace(/\{(\w+)\}/g, ':$1')}`)

  const registered = registeredRoutes(app.printRoutes({ commonPrefix: false }))
  t.ok(registered.size > 50, `the route tree was read (${registered.size} routes)`)
  // The docs page's own assets (/docs/static/*, /docs/json, /docs/yaml) are the page, not the API;
  // so are the browser console's files (/consola, /consola/ and its script and style, D46).
  const api_ = [...registered].filter((r) => !/^GET \/api\/docs\/.+|^GET \/api\/consola(\/|$)/.test(r))
  t.same(
    api_.filter((r) => !documented.has(r)),
    [],
    'no registered route is missing from the document',
  )
  for (const route of documented) {
    const [method, url] = route.split(' ') as [string, string]
    t.ok(app.hasRoute({ method: method as 'GET', url }), `${route} is served`)
  }
  t.same(
    [...documented].filter((r) => !registered.has(r)),
    [],
    'no documented route is missing from the router',
  )
})

t.test('the docs page and its assets are served from this process on Node 20 (no CDN)', async (t) => {
  const api = await startTestApi(t)
  const page = await api.request('GET', '/docs')
  t.equal(page.status, 200)
  t.match(page.headers['content-type'], /^text\/html/)
  const html = String(page.body)
  t.notMatch(html, /https?:\/\//, 'no absolute URL: nothing is fetched from elsewhere')
  const assets = [...html.matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => m[1] as string)
  t.ok(assets.length >= 5, 'stylesheets, scripts and icons')
  for (const asset of assets) {
    t.match(asset, /^\/api\/docs\/static\//, `${asset} hangs from BASE_PATH`)
    const reply = await api.service.app.inject({ method: 'GET', url: asset })
    t.equal(reply.statusCode, 200, `${asset} is served`)
    t.ok(reply.body.length > 0)
  }
  const init = await api.service.app.inject({ method: 'GET', url: '/api/docs/static/swagger-initializer.js' })
  t.match(init.body, /validatorUrl: null/, 'no request to the public validator')
  // Built on the first request (not at start) and the same for the page and /openapi.json.
  const served = (await api.request('GET', '/openapi.json')).body
  t.ok(Object.keys(served.paths).length > 10, 'the whole document, not a stand-in')
  t.same((await api.request('GET', '/docs/json')).body, served, 'the page reads the same document')
  const yaml = await api.service.app.inject({ method: 'GET', url: '/api/docs/yaml' })
  t.match(yaml.body, /\/denuncias/, 'and its YAML form')
  t.match(page.headers['content-security-policy'], /script-src 'self'/, 'helmet CSP applies to the page too')
})

t.test('BASE_PATH=/ serves the document at /openapi.json with server url /', async (t) => {
  const api = await startTestApi(t, { env: { BASE_PATH: '/' } })
  const reply = await api.service.app.inject({ method: 'GET', url: '/openapi.json' })
  t.equal(reply.statusCode, 200)
  t.same(reply.json().servers, [{ url: '/', description: 'Este servicio' }])
  const page = await api.service.app.inject({ method: 'GET', url: '/docs' })
  t.match(page.body, /href="\/docs\/static\/swagger-ui\.css"/)
})
