// buildOpenApiDocument is pure: the compiled service in, OpenAPI 3.1 out (D3).
// The schemas it publishes are the objects that validate requests, not copies.
import { join } from 'node:path'
import t from 'tap'
import { createBodyAjv } from '../../../src/records/body-validator.js'
import { compileService } from '../../../src/compile/service.js'
import { loadModulesConfig } from '../../../src/config/load.js'
import { MESSAGES } from '../../../src/errors.js'
import { buildOpenApiDocument } from '../../../src/openapi/document.js'
import { moduleComponentNames } from '../../../src/contracts/component-names.js'
import { openApiPath } from '../../../src/contracts/route-contract.js'

const ROOT = new URL('../../../', import.meta.url).pathname
const service = compileService(loadModulesConfig(join(ROOT, 'modules.yaml')))
const doc = buildOpenApiDocument(service, { basePath: '/api', version: '1.2.3' }) as any

t.test('the same input gives the same document (no clock, no randomness)', async (t) => {
  t.same(buildOpenApiDocument(service, { basePath: '/api', version: '1.2.3' }), doc)
  t.equal(doc.openapi, '3.1.0')
  t.equal(doc.info.version, '1.2.3', 'the version comes from the options')
  t.same(doc.servers, [{ url: '/api', description: 'Este servicio' }], 'paths are relative to BASE_PATH')
  t.same(buildOpenApiDocument(service, { basePath: '/', version: '1' }).servers, [
    { url: '/', description: 'Este servicio' },
  ])
})

t.test('every route of every module is a path, with its permission as x-permission and in words', async (t) => {
  t.equal(service.modules.length, 9)
  for (const spec of service.modules)
    for (const route of spec.routes) {
      const operation = doc.paths[openApiPath(`/${spec.name}`, route.url)]?.[route.method.toLowerCase()]
      if (!t.ok(operation, `${route.method} /${spec.name}${route.url}`)) continue
      t.equal(operation['x-permission'], route.permission)
      t.match(operation.description, `**Permiso necesario:** \`${route.permission}\``)
      t.same(operation.security, [{ bearer: [] }])
      t.same(operation.tags, [spec.name])
    }
  t.same(doc.components.securitySchemes.bearer, {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: doc.components.securitySchemes.bearer.description,
  })
  t.same(doc.paths['/auth/login'].post.security, [], 'login needs no token')
  for (const path of ['/health', '/openapi.json', '/docs'])
    t.same(doc.paths[path].get.security, [], `${path} needs no token (D3)`)
  t.equal(doc.paths['/auditoria'].get['x-permission'], 'auditoria.ver')
})

t.test('request bodies are the compiled schemas plus what the service ignores (D5, D7, D15)', async (t) => {
  for (const spec of service.modules) {
    const names = moduleComponentNames(spec)
    for (const [published, validating] of [
      [doc.components.schemas[names.create], spec.schemas.create],
      [doc.components.schemas[names.update], spec.schemas.update],
    ]) {
      const { properties, description, ...rest } = published
      const { properties: own, ...ownRest } = validating as { properties: Record<string, unknown> }
      t.same(rest, ownRest, `${spec.name}: required and additionalProperties as validated`)
      t.equal(rest.additionalProperties, false, `${spec.name}: an unknown field is refused (D7)`)
      t.match(description, 'se aceptan y se ignoran', `${spec.name}: says metadata are accepted and ignored (D7)`)
      // Named one by one, not as a `^_` pattern: openapi-typescript would type that as "any key".
      for (const key of ['_id', '_version', '_hash', '_created', '_integridad'])
        t.match(properties[key].description, 'se ignora', `${spec.name}.${key}: accepted and ignored (D7)`)
      for (const field of spec.fields)
        if (field.encrypted)
          t.same(
            properties[field.name].anyOf,
            [own[field.name], { const: '***' }],
            `${spec.name}.${field.name}: the mask (D15)`,
          )
        else t.equal(properties[field.name], own[field.name], `${spec.name}.${field.name}: the validating schema`)
    }
    t.same(doc.paths[`/${spec.name}`].post.requestBody.content['application/json'].schema, {
      $ref: `#/components/schemas/${names.create}`,
    })
  }
  const denuncias = doc.components.schemas.DenunciasAlta
  t.same(
    denuncias.required,
    ['denunciante_nombre', 'tipo', 'fecha_hechos', 'lugar_hechos', 'descripcion'],
    'D5 for denuncias',
  )
  t.same(denuncias.properties.estado.enum, ['pendiente', 'investigacion', 'archivada', 'judicializada', null])
  t.same(doc.components.schemas.UsuariosAlta.properties.rol.enum, [...service.roles.keys()], 'roles from modules.yaml')
})

t.test('examples are valid bodies: the ajv that validates requests accepts them', async (t) => {
  const ajv = createBodyAjv()
  for (const spec of service.modules) {
    const post = doc.paths[`/${spec.name}`].post.requestBody.content['application/json'].example
    const put = doc.paths[`/${spec.name}/{id}`].put.requestBody.content['application/json'].example
    t.ok(ajv.validate(spec.schemas.create, post), `${spec.name}: create example ${JSON.stringify(ajv.errors)}`)
    t.ok(
      ajv.validate(spec.schemas.update, put) && Object.keys(put as object).length > 0,
      `${spec.name}: update example`,
    )
    const record = doc.paths[`/${spec.name}/{id}`].get.responses['200'].content['application/json'].example.data
    t.ok(ajv.validate(spec.schemas.record, record), `${spec.name}: record example ${JSON.stringify(ajv.errors)}`)
  }
})

t.test(
  'list parameters: limit, offset, sort, fields, q where searchable, one filtros object holding each operator of each filterable field (D11, D16)',
  async (t) => {
    const keys = (name: string, operators: readonly string[]) =>
      operators.flatMap((op) => (op === 'eq' ? [name, `${name}[eq]`] : [`${name}[${op}]`]))
    for (const spec of service.modules) {
      const params = doc.paths[`/${spec.name}`].get.parameters as any[]
      const names = params.map((p) => p.name ?? p.$ref.split('/').pop())
      const filterable = spec.fields.filter((f) => f.parseFilter !== null).flatMap((f) => keys(f.name, f.operators))
      const stamps = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte']
      const who = ['eq', 'ne', 'in']
      t.same(
        names,
        [
          'limit',
          'offset',
          'sort',
          'fields',
          ...(spec.fields.some((f) => f.def.searchable) ? ['q'] : []),
          'filtros',
          ...(spec.references.length > 0 ? ['expand'] : []),
        ],
        spec.name,
      )
      const filtros = params.find((p) => p.name === 'filtros')
      t.match(filtros, {
        in: 'query',
        style: 'form',
        explode: true,
        schema: { type: 'object', additionalProperties: false },
      })
      const filterKeys = Object.keys(filtros.schema.properties)
      t.same(
        filterKeys,
        [
          ...filterable,
          ...keys('_created', stamps),
          ...keys('_modified', stamps),
          ...keys('_created_by', who),
          ...keys('_modified_by', who),
        ],
        `${spec.name}: every filter key the service takes`,
      )
      for (const field of spec.fields.filter((f) => f.parseFilter !== null))
        t.match(
          filtros.description,
          `| \`${field.name}\` | ${field.operators.join(', ')} |`,
          `${field.name} in the table`,
        )
      t.same(filtros.examples.sin_filtros.value, {}, 'Execute starts with no filter')
      for (const param of params)
        t.notOk('example' in param && param.required !== true, `${spec.name}: ${param.name} pre-fills no value`)
      t.same(
        doc.paths[`/${spec.name}/{id}`].get.parameters.map((p: any) => p.name),
        ['id', 'fields', 'version', ...(spec.references.length > 0 ? ['expand'] : []), 'If-None-Match'],
      )
      for (const field of spec.fields.filter((f) => f.parseFilter === null))
        t.notOk(filterKeys.includes(field.name), `${spec.name}.${field.name} is not filterable`)
    }
    const filters = doc.paths['/denuncias'].get.parameters.find((p: any) => p.name === 'filtros')
    const props = filters.schema.properties
    t.match(props.estado, { type: 'string', enum: ['pendiente', 'investigacion', 'archivada', 'judicializada'] })
    t.match(
      props.denunciante_dni.description,
      'denuncias.descifrar',
      'an encrypted filter names the permission it needs',
    )
    const ops = (name: string) =>
      Object.keys(props)
        .filter((k) => k.startsWith(`${name}[`))
        .map((k) => k.slice(name.length + 1, -1))
    t.same(ops('denunciante_dni'), ['eq', 'in', 'null'], 'an encrypted field: eq, in and null only')
    t.same(ops('fecha_hechos'), ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'null'])
    t.match(
      props['fecha_hechos[gte]'],
      { type: 'string', format: 'local-datetime' },
      "a range operator carries the type's schema",
    )
    t.match(props['fecha_hechos[null]'], { type: 'boolean' })
    const sort = doc.paths['/denuncias'].get.parameters.find((p: any) => p.name === 'sort')
    t.match('-fecha_hechos,prioridad', new RegExp(sort.schema.pattern), 'sort takes several keys')
    t.notMatch('denunciante_dni', new RegExp(sort.schema.pattern), 'but no encrypted field')
    t.same(doc.components.parameters.limit.schema, { type: 'integer', minimum: 1, default: 100 })
  },
)

t.test('answers: envelopes per status with the messages of errors.ts', async (t) => {
  const create = doc.paths['/denuncias'].post.responses
  t.same(Object.keys(create).sort(), ['201', '400', '401', '403', '409', '413', '415', '429', '500'])
  const get = doc.paths['/denuncias/{id}'].get.responses
  // 400: a `version` that is not a whole number from 1.
  // 304: If-None-Match naming the current version (D13).
  t.same(Object.keys(get).sort(), ['200', '304', '400', '401', '403', '404', '429', '500'])
  const responses = doc.components.responses
  const messages = (name: string) =>
    Object.values(responses[name].content['application/json'].examples).map((e: any) => e.value.error)
  t.ok(messages('BadRequest').includes(MESSAGES.required))
  t.same(messages('Forbidden'), ['Sin permisos para esta operación'])
  t.same(messages('NotFound'), ['Registro no encontrado', 'Fichero no encontrado'])
  t.same(messages('TooManyRequests'), ['Demasiadas solicitudes'])
  t.same(messages('InternalError'), ['Error interno del servidor'])
  t.ok(messages('Unauthorized').includes(MESSAGES.noToken) && messages('Unauthorized').includes(MESSAGES.invalidToken))
  t.ok(responses.TooManyRequests.headers['retry-after'])
  t.same(doc.paths['/denuncias/{id}'].delete.responses['200'].content['application/json'].example, {
    success: true,
    data: { message: 'Registro eliminado' },
  })
})

t.test('a new module in modules.yaml shows up with no code change', async (t) => {
  const tenth = compileService(loadModulesConfig(join(ROOT, 'test/fixtures/modules/valid/tenth-module.yaml')))
  const added = tenth.modules.find((m) => !service.moduleByName.has(m.name))
  if (added === undefined) return t.fail('the fixture adds a module')
  const tenthDoc = buildOpenApiDocument(tenth, { basePath: '/api', version: '1' }) as any
  t.ok(tenthDoc.paths[`/${added.name}`].get && tenthDoc.paths[`/${added.name}/{id}`].delete)
  t.ok(tenthDoc.tags.some((tag: any) => tag.name === added.name))
})
