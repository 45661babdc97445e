// D41: a module's `retention:` compiled, and how it is shown (records explain, the OpenAPI document).
import { readFileSync } from 'node:fs'
import t from 'tap'
import { retentionDeclaration, retentionNote, retentionWarnings } from '../../../src/compile/retention.js'
import { compileService } from '../../../src/compile/service.js'
import { buildOpenApiDocument } from '../../../src/openapi/document.js'
import { explainModule, explainRecord } from '../../../src/records/explain.js'
import { configFrom, moduleOf, SHIPPED_MODULES, shippedService } from '../support/config.js'

const service = shippedService()

t.test('D41: from, durations and on_expiry compile to what the due computation reads', async (t) => {
  t.strictSame(moduleOf(service, 'sanciones').retention, {
    basis: 'Ley 39/2015 y Ley 40/2015 (procedimiento sancionador); prescripción de la sanción',
    fromText: 'fecha_infraccion',
    from: { kind: 'field', field: 'fecha_infraccion' },
    reviewEvery: { amount: 1, unit: 'y' },
    keepAtMost: { amount: 5, unit: 'y' },
    onExpiry: 'review',
  })
  t.strictSame(moduleOf(service, 'personal').retention?.from, { kind: 'state', field: 'situacion', state: 'jubilado' })
  t.strictSame(moduleOf(service, 'denuncias').retention?.from, { kind: 'created' })
  t.equal(moduleOf(service, 'vehiculos').retention, undefined)
})

t.test('D41: the shipped criminal files are reviewed at least every three years', async (t) => {
  for (const name of ['denuncias', 'atestados']) {
    const every = moduleOf(service, name).retention?.reviewEvery
    t.ok(every !== undefined && every.unit === 'y' && every.amount <= 3, name)
  }
  for (const spec of service.modules.filter((m) => m.def.personalData === true))
    t.not(spec.retention, undefined, `${spec.name} holds personal data and declares retention`)
})

t.test('D41: records explain and the OpenAPI document show the retention', async (t) => {
  const sanciones = moduleOf(service, 'sanciones')
  const note = retentionNote(sanciones.retention!)
  t.equal(
    note,
    'Conservación (D41): desde el campo fecha_infraccion, revisión cada 1 año; se conserva como máximo 5 años; ' +
      'al vencer, lo revisa una persona (retencion.decidir). ' +
      'Base: Ley 39/2015 y Ley 40/2015 (procedimiento sancionador); prescripción de la sanción.',
  )
  const dpd = service.roles.get('dpd')!
  const lines = explainModule(sanciones, dpd, { id: 'USR-2026-00001', role: 'dpd', fields: {} })
  t.ok(lines.includes(`  ${note}`), 'explain')
  t.ok(
    explainModule(moduleOf(service, 'vehiculos'), dpd, { id: 'USR-2026-00001', role: 'dpd', fields: {} }).includes(
      "  Conservación: el módulo no declara 'retention:' (D41)",
    ),
  )
  const doc = buildOpenApiDocument(service, { basePath: '/api', version: '1' }) as any
  const tag = doc.tags.find((tag: { name: string }) => tag.name === 'sanciones')
  t.same(tag['x-retencion'], retentionDeclaration(sanciones.retention!))
  t.same(tag['x-retencion'], {
    basis: 'Ley 39/2015 y Ley 40/2015 (procedimiento sancionador); prescripción de la sanción',
    from: 'fecha_infraccion',
    review_every: '1y',
    keep_at_most: '5y',
    on_expiry: 'review',
  })
  t.match(tag.description, note)
  t.equal(doc.tags.find((tag: { name: string }) => tag.name === 'vehiculos')['x-retencion'], undefined)
  t.equal(doc.paths['/retencion'].get['x-permission'], 'retencion.ver')
  t.equal(doc.paths['/retencion/{module}/{id}'].post['x-permission'], 'retencion.decidir')
  t.same(doc.paths['/retencion/{module}/{id}'].post.parameters[0].schema.enum, [
    'denuncias',
    'sanciones',
    'atestados',
    'personal',
    'sala092',
    'turnos',
    'usuarios',
  ])
})

t.test('D41: on_expiry block or erase without keep_at_most is a warning of records validate', async (t) => {
  t.same(retentionWarnings(service), [], 'none in the shipped file')
  const edited = configFrom(
    readFileSync(SHIPPED_MODULES, 'utf8').replaceAll(
      '      from: _created\n      review_every: 3y\n',
      '      from: _created\n      review_every: 3y\n      on_expiry: erase\n',
    ),
  )
  const warnings = retentionWarnings(compileService(edited))
  t.same(
    warnings.map((w) => w.module),
    ['denuncias', 'atestados', 'usuarios'],
    'the modules reviewed every 3 years from _created',
  )
  t.match(warnings[0]?.message, "declara 'on_expiry: erase' sin 'keep_at_most': no se aplicará nunca")
})

t.test('D41: records explain names {module}.bloqueados where records can be blocked, and only there', async (t) => {
  const consulta = service.roles.get('consulta')!
  const user = { id: 'USR-2026-00001', role: 'consulta', fields: {} }
  t.ok(
    explainModule(moduleOf(service, 'denuncias'), consulta, user).includes(
      '  Permisos: denuncias.ver; sin crear, editar, eliminar, descifrar, bloqueados',
    ),
  )
  t.ok(
    explainModule(moduleOf(service, 'vehiculos'), consulta, user).includes(
      '  Permisos: vehiculos.ver; sin crear, editar, eliminar, descifrar',
    ),
    'a module without retention: has nothing to block',
  )
  const config = configFrom(
    readFileSync(SHIPPED_MODULES, 'utf8').replace(
      '\nroles:\n',
      '\nroles:\n  custodio:\n    permissions: [denuncias.ver, denuncias.bloqueados]\n',
    ),
  )
  const custodio = compileService(config).roles.get('custodio')!
  t.ok(
    explainModule(moduleOf(service, 'denuncias'), custodio, { ...user, role: 'custodio' }).includes(
      '  Permisos: denuncias.ver, denuncias.bloqueados; sin crear, editar, eliminar, descifrar',
    ),
  )
})

t.test('D41: the OpenAPI document says what a blocked record answers, where records can be blocked', async (t) => {
  const doc = buildOpenApiDocument(service, { basePath: '/api', version: '1' }) as any
  t.match(doc.paths['/denuncias'].get.description, 'no aparecen en la lista, su total ni sus búsquedas')
  t.match(doc.paths['/denuncias/{id}'].get.description, 'salvo a un rol con `denuncias.bloqueados`')
  t.match(doc.paths['/denuncias/{id}/historial'].get.description, '`denuncias.bloqueados`')
  t.match(doc.paths['/denuncias/{id}'].put.description, '403 `Registro bloqueado` para todos')
  t.match(doc.paths['/denuncias/{id}'].delete.description, '403 `Registro bloqueado` para todos')
  t.notMatch(doc.paths['/denuncias'].post.description, 'bloqueado')
  t.notMatch(doc.paths['/vehiculos/{id}'].get.description, 'bloqueado', 'vehiculos keeps no records under retention:')
})

t.test('D41: records explain <id> says a record is blocked, and what the role may do with it', async (t) => {
  const denuncias = moduleOf(service, 'denuncias')
  const consulta = service.roles.get('consulta')!
  const user = { id: 'USR-2026-00001', role: 'consulta', fields: {} }
  const facts = { id: 'DEN-2026-00001', record: { estado: 'pendiente' }, visible: true }
  t.match(
    explainRecord(denuncias, consulta, user, { ...facts, blocked: true }).join('\n'),
    'Bloqueado (D41): fuera de las listas; GET, historial, PUT y DELETE responden 403 (falta denuncias.bloqueados para leerlo)',
  )
  t.notMatch(explainRecord(denuncias, consulta, user, facts).join('\n'), 'Bloqueado')
})
