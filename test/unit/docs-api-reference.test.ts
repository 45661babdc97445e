// docs/api-reference.md documents every endpoint and every message. Its
// endpoint table must list each operation of the OpenAPI document the service serves (module
// paths written as {module}), and each fixed Spanish message of errors.ts must appear in it,
// so a new route or message without its reference fails here.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { compileService } from '../../src/compile/service.js'
import { loadModulesConfig } from '../../src/config/load.js'
import { MESSAGES } from '../../src/errors.js'
import { buildOpenApiDocument } from '../../src/openapi/document.js'

const ROOT = new URL('../../', import.meta.url).pathname
const REFERENCE = readFileSync(join(ROOT, 'docs/api-reference.md'), 'utf8')
const service = compileService(loadModulesConfig(join(ROOT, 'modules.yaml')))
const document = buildOpenApiDocument(service, { basePath: '/api', version: '0.0.0' }) as unknown as {
  paths: Record<string, Record<string, unknown>>
}

/** `| GET | `/{module}/{id}` |` rows of the endpoint table, as `GET /{module}/{id}`. */
function documentedOperations(): Set<string> {
  const operations = new Set<string>()
  for (const match of REFERENCE.matchAll(/^\| (GET|POST|PUT|DELETE) \| ([^|]+) \|/gm))
    for (const path of (match[2] as string).matchAll(/`([^`]+)`/g)) operations.add(`${match[1]} ${path[1]}`)
  return operations
}

t.test('the endpoint table lists every operation the service serves', async (t) => {
  const modules = new Set(service.modules.map((m) => m.name))
  const served = new Set<string>()
  for (const [path, item] of Object.entries(document.paths)) {
    const generic = path.replace(/^\/([^/]+)/, (whole, first: string) => (modules.has(first) ? '/{module}' : whole))
    for (const method of Object.keys(item)) served.add(`${method.toUpperCase()} ${generic}`)
  }
  served.add('GET /openapi.json').add('GET /docs') // served beside the document, not described in it
  t.same([...documentedOperations()].sort(), [...served].sort())
})

t.test('every fixed message of errors.ts is in the reference, verbatim', async (t) => {
  for (const message of Object.values(MESSAGES)) t.ok(REFERENCE.includes(message), message)
  for (const message of ['Registro eliminado', 'Sesión cerrada']) t.ok(REFERENCE.includes(message), message)
})
