// The published contract matches what the service does: a record read with
// GET validates, as it is, against the published update and create schemas (D7 metadata, D15
// masks); every 4xx declares the rate-limit headers it carries (D24); /me/password is there.
import t from 'tap'
import { createBodyAjv } from '../../../src/records/body-validator.js'
import { startTestApi, VALID } from '../../helpers/api.js'

type Document = {
  paths: Record<string, Record<string, any>>
  components: { schemas: Record<string, any>; responses: Record<string, any> }
}

t.test('a GET body sent back validates against the published schemas, and the PUT succeeds', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const doc = (await api.request('GET', '/openapi.json')).body as Document
  const ajv = createBodyAjv()
  const reader = await api.userWithRole('consulta')
  for (const module of ['denuncias', 'personal', 'sala092']) {
    const created = await api.create(module, {
      ...VALID[module]!(),
      ...(module === 'denuncias' ? { denunciante_dni: '12345678Z' } : {}),
    })
    const base = module[0]!.toUpperCase() + module.slice(1)
    const update = ajv.compile(doc.components.schemas[`${base}Cambios`])
    const create = ajv.compile(doc.components.schemas[`${base}Alta`])
    for (const [who, as] of [
      ['with descifrar', token],
      ['masked', reader.token],
    ] as const) {
      // personal asks roles below jefe for a motivo.
      const headers = { 'x-motivo': 'Comprobación del contrato' }
      const read = (await api.request('GET', `/${module}/${String(created._id)}`, { token: as, headers })).body.data
      t.ok(update(read), `${module} ${who}: the GET body is a valid update body ${JSON.stringify(update.errors)}`)
      t.ok(create(read), `${module} ${who}: and a valid create body ${JSON.stringify(create.errors)}`)
    }
    const read = (await api.request('GET', `/${module}/${String(created._id)}`, { token })).body.data
    const put = await api.request('PUT', `/${module}/${String(created._id)}`, { token, body: read })
    t.equal(put.status, 200, `${module}: the service accepts what the schema publishes`)
  }
  const unknown = ajv.compile(doc.components.schemas['DenunciasCambios'])
  t.notOk(unknown({ campo_inventado: 1 }), 'an unknown field is still outside the published schema')
})

t.test('every 4xx response declares the x-ratelimit headers it carries (D24)', async (t) => {
  const api = await startTestApi(t)
  const doc = (await api.request('GET', '/openapi.json')).body as Document
  const resolve = (response: any) =>
    response.$ref === undefined ? response : doc.components.responses[String(response.$ref).split('/').pop()!]
  let checked = 0
  for (const [path, operations] of Object.entries(doc.paths))
    for (const [method, operation] of Object.entries(operations))
      for (const [status, response] of Object.entries(operation.responses as Record<string, unknown>)) {
        if (!status.startsWith('4')) continue
        checked += 1
        const headers = Object.keys(resolve(response).headers ?? {})
        for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'])
          t.ok(headers.includes(name), `${method.toUpperCase()} ${path} ${status} declares ${name}`)
      }
  t.ok(checked > 50, 'the document has many 4xx answers')
  const bad = await api.request('GET', '/denuncias?limit=0', { token: await api.adminToken() })
  t.equal(bad.status, 400)
  t.ok(bad.headers['x-ratelimit-limit'] !== undefined, 'and a real 400 carries them')
})

t.test('POST /me/password is published', async (t) => {
  const api = await startTestApi(t)
  const doc = (await api.request('GET', '/openapi.json')).body as Document
  const operation = doc.paths['/me/password']?.['post']
  t.equal(operation?.operationId, 'change_password')
  t.same(operation?.requestBody.content['application/json'].schema.required, ['password_actual', 'password_nueva'])
})
