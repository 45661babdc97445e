// D4, D5, D7: what a create or update body must look like, for every module.
import t from 'tap'
import { D5_REQUIRED } from '../../fixtures/decisions.js'
import { startTestApi, VALID, type TestApi } from '../../helpers/api.js'

let users = 0
const BODIES: Record<string, () => Record<string, unknown>> = {
  ...VALID,
  usuarios: () => ({
    username: `usuario_${++users}`,
    password: 'turno-de-noche-123',
    nombre: 'Pepe Sanz',
    rol: 'consulta',
  }),
}

/** A value of the wrong JSON type for a field of `type`. */
function wrongTypeValue(type: string): unknown {
  switch (type) {
    case 'integer':
      return 'cien'
    case 'decimal':
      return 'doscientos'
    case 'boolean':
      return 'sí'
    case 'array':
      return 'uno, dos'
    case 'mixed':
      return undefined // anything is valid
    default:
      return 12345 // every string-like type
  }
}

const fieldsNamed = (body: any): string[] => (body.details ?? []).map((d: { field: string }) => d.field)

async function post(api: TestApi, module: string, body: unknown) {
  // The records a body's ref fields name exist first: these tests are about the body.
  if (typeof body === 'object' && body !== null) await api.seedTargets(body as Record<string, unknown>, module)
  return api.request('POST', `/${module}`, { token: await api.adminToken(), body })
}

t.test('D5: a create missing a required field is 400 Datos requeridos naming it, in every module', async (t) => {
  const api = await startTestApi(t)
  for (const [module, required] of Object.entries(D5_REQUIRED)) {
    t.same(
      [...(api.service.spec.modules.find((m) => m.name === module)?.requiredFields ?? [])].sort(),
      [...required].sort(),
      `${module}: modules.yaml matches D5`,
    )
    for (const field of required) {
      const { [field]: _dropped, ...body } = BODIES[module]!()
      const reply = await post(api, module, body)
      t.equal(reply.status, 400, `${module} without ${field}`)
      t.equal(reply.body.error, 'Datos requeridos', `${module} without ${field}: message`)
      t.equal(reply.body.success, false)
      t.ok(fieldsNamed(reply.body).includes(field), `${module} without ${field}: details name it`)
    }
  }
})

t.test('D5: a create without any body names every required field', async (t) => {
  const api = await startTestApi(t)
  const reply = await api.request('POST', '/atestados', { token: await api.adminToken() })
  t.equal(reply.status, 400)
  t.equal(reply.body.error, 'Datos requeridos')
  t.same(fieldsNamed(reply.body).sort(), ['juzgado', 'tipo'])
})

t.test('D5: an empty string for a required field is 400 Datos requeridos naming it, in every module', async (t) => {
  const api = await startTestApi(t)
  for (const [module, required] of Object.entries(D5_REQUIRED)) {
    for (const field of required) {
      const reply = await post(api, module, { ...BODIES[module]!(), [field]: '' })
      t.equal(reply.status, 400, `${module}.${field} = ''`)
      t.equal(reply.body.error, 'Datos requeridos', `${module}.${field} = '': message`)
      t.ok(fieldsNamed(reply.body).includes(field), `${module}.${field} = '': details name it`)
    }
  }
})

t.test('D7: an unknown field is 400 naming it in error and details, in every module', async (t) => {
  const api = await startTestApi(t)
  for (const module of Object.keys(D5_REQUIRED)) {
    const reply = await post(api, module, { ...BODIES[module]!(), campo_inventado: 'x' })
    t.equal(reply.status, 400, module)
    t.match(reply.body.error, /campo_inventado/, `${module}: error names the field`)
    t.ok(fieldsNamed(reply.body).includes('campo_inventado'), `${module}: details name the field`)
  }
})

t.test('D7: a value of the wrong type is 400 naming the field, for every field of every module', async (t) => {
  const api = await startTestApi(t)
  for (const spec of api.service.spec.modules) {
    for (const field of spec.fields) {
      const wrong = wrongTypeValue(field.def.type)
      if (wrong === undefined) continue
      const reply = await post(api, spec.name, { ...BODIES[spec.name]!(), [field.name]: wrong })
      t.equal(reply.status, 400, `${spec.name}.${field.name} (${field.def.type}) = ${JSON.stringify(wrong)}`)
      t.ok(fieldsNamed(reply.body).includes(field.name), `${spec.name}.${field.name}: details name it`)
      t.match(reply.body.error, field.name, `${spec.name}.${field.name}: error names it`)
    }
  }
  // The two cases the decision spells out, with their exact wording.
  const km = await post(api, 'vehiculos', { ...VALID['vehiculos']!(), km_actuales: '100' })
  t.match(km.body, {
    success: false,
    details: [{ field: 'km_actuales', message: "El campo 'km_actuales' debe ser de tipo número entero" }],
  })
  const name = await post(api, 'denuncias', { ...VALID['denuncias']!(), lugar_hechos: 42 })
  t.match(name.body, { success: false, details: [{ field: 'lugar_hechos', message: /texto/ }] })
})

t.test('D7: an enum value outside the list is 400 naming the field and the allowed values', async (t) => {
  const api = await startTestApi(t)
  let checked = 0
  for (const spec of api.service.spec.modules) {
    for (const field of spec.fields) {
      const allowed = field.def.enum ?? (field.valueSchema['enum'] as readonly string[] | undefined)
      if (allowed === undefined) continue
      checked += 1
      const reply = await post(api, spec.name, { ...BODIES[spec.name]!(), [field.name]: 'valor_fuera_de_lista' })
      t.equal(reply.status, 400, `${spec.name}.${field.name}`)
      const detail = (reply.body.details ?? []).find((d: { field: string }) => d.field === field.name)
      t.ok(detail, `${spec.name}.${field.name}: details name it`)
      for (const value of allowed) t.match(detail?.message, value, `${spec.name}.${field.name}: lists '${value}'`)
      t.match(reply.body.error, field.name)
    }
  }
  t.ok(checked >= 17, `every enum field was tried (${checked})`)
  const reply = await post(api, 'vehiculos', { ...VALID['vehiculos']!(), tipo: 'tanque' })
  t.equal(reply.body.details[0].message, "El campo 'tipo' debe ser uno de: patrulla, moto, furgon, todoterreno")
})

t.test('D4: dates and datetimes must be real calendar values', async (t) => {
  const api = await startTestApi(t)
  for (const spec of api.service.spec.modules) {
    for (const field of spec.fields) {
      const bad =
        field.def.type === 'date'
          ? ['2026-02-30', '2026-13-01', '20-11-2026', '2026-11-20 10:00:00']
          : field.def.type === 'datetime'
            ? ['2026-11-20 25:00:00', '2026-02-30 10:00:00', '2026-11-20 10:60:00', '2026-11-20T10:00:00', '2026-11-20']
            : []
      for (const value of bad) {
        const reply = await post(api, spec.name, { ...BODIES[spec.name]!(), [field.name]: value })
        t.equal(reply.status, 400, `${spec.name}.${field.name} = ${value}`)
        t.ok(fieldsNamed(reply.body).includes(field.name), `${spec.name}.${field.name} = ${value}: details name it`)
      }
    }
  }
  t.equal(
    (await post(api, 'sanciones', { ...VALID['sanciones']!(), fecha_notificacion: '2028-02-29' })).status,
    201,
    'a leap day is a real date',
  )
  t.equal(
    (await post(api, 'sanciones', { ...VALID['sanciones']!(), fecha_infraccion: '2026-11-20 23:59:59' })).status,
    201,
  )
})

t.test('D4: turnos hora_inicio is HH:MM from 00:00 to 23:59', async (t) => {
  const api = await startTestApi(t)
  for (const value of ['24:00', '23:60', '9:00', '09:00:00', 'nueve']) {
    const reply = await post(api, 'turnos', { ...VALID['turnos']!(), hora_inicio: value })
    t.equal(reply.status, 400, `hora_inicio ${value}`)
    t.ok(fieldsNamed(reply.body).includes('hora_inicio'))
  }
  for (const value of ['23:59', '00:00', '07:30']) {
    const reply = await post(api, 'turnos', { ...VALID['turnos']!(), hora_inicio: value, hora_fin: value })
    t.equal(reply.status, 201, `hora_inicio ${value}`)
    t.equal(reply.body.data.hora_inicio, value)
  }
})

t.test('D4: vehiculos km_actuales is an integer >= 0', async (t) => {
  const api = await startTestApi(t)
  const negative = await post(api, 'vehiculos', { ...VALID['vehiculos']!(), km_actuales: -1 })
  t.equal(negative.status, 400)
  t.ok(fieldsNamed(negative.body).includes('km_actuales'))
  const fraction = await post(api, 'vehiculos', { ...VALID['vehiculos']!(), km_actuales: 10.5 })
  t.equal(fraction.status, 400, 'a fraction is not an integer')
  const zero = await post(api, 'vehiculos', { ...VALID['vehiculos']!(), km_actuales: 0 })
  t.equal(zero.status, 201)
  t.equal(zero.body.data.km_actuales, 0)
})

t.test('D7: metadata fields sent by a client are ignored, never applied', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const forged = {
    _id: 'DEN-1999-99999',
    _created: '1999-01-01 00:00:00',
    _modified: '1999-01-01 00:00:00',
    _version: 42,
    _hash: 'f'.repeat(64),
    _created_by: 'USR-1999-00001',
    _modified_by: 'USR-1999-00001',
    _deleted: '1999-01-01 00:00:00',
  }
  const created = await post(api, 'denuncias', { ...VALID['denuncias']!(), ...forged })
  t.equal(created.status, 201)
  const record = created.body.data
  t.match(record._id, /^DEN-\d{4}-00001$/)
  t.equal(record._version, 1)
  t.not(record._created, forged._created)
  t.not(record._hash, forged._hash)
  t.not(record._created_by, forged._created_by)
  t.not(record._modified_by, forged._modified_by)
  t.equal(record._deleted, undefined, 'no _deleted in the API record')
  t.equal(
    (await api.request('GET', `/denuncias/${record._id}`, { token })).status,
    200,
    'not deleted by a forged _deleted',
  )
  t.equal((await api.request('GET', '/denuncias/DEN-1999-99999', { token })).status, 404, 'the forged id was not used')

  const updated = await api.request('PUT', `/denuncias/${record._id}`, {
    token,
    body: { observaciones: 'nota', _version: 99, _id: 'DEN-1999-99999', _created: forged._created },
  })
  t.equal(updated.status, 200)
  t.equal(updated.body.data._version, 2)
  t.equal(updated.body.data._id, record._id)
  t.equal(updated.body.data._created, record._created)
  const onlyMetadata = await api.request('PUT', `/denuncias/${record._id}`, { token, body: { _version: 7 } })
  t.equal(onlyMetadata.status, 400, 'an update of metadata only has no fields')
  t.equal(onlyMetadata.body.error, 'Datos requeridos')
})

t.test('D7: a body that is not a JSON object is 400 JSON inválido', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const { _id } = await api.create('denuncias', VALID['denuncias']!())
  for (const rawBody of [
    '[]',
    `[${JSON.stringify(VALID['denuncias']!())}]`,
    '"texto"',
    '42',
    'true',
    'null',
    '{"tipo": "hurto",',
    "{'tipo': 'hurto'}",
    '{tipo: hurto}',
  ]) {
    for (const [method, path] of [
      ['POST', '/denuncias'],
      ['PUT', `/denuncias/${_id}`],
    ] as const) {
      const reply = await api.request(method, path, { token, rawBody })
      t.equal(reply.status, 400, `${method} ${rawBody}`)
      t.same(reply.body, { success: false, error: 'JSON inválido' }, `${method} ${rawBody}: message`)
    }
  }
})

t.test('D7: prototype poisoning is a 400, never a 500, and pollutes nothing', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const { _id } = await api.create('denuncias', VALID['denuncias']!())
  const valid = JSON.stringify(VALID['denuncias']!()).slice(1, -1)
  for (const rawBody of [
    '{"__proto__": {"isAdmin": true}}',
    `{${valid}, "__proto__": {"tipo": "robo"}}`,
    '{"constructor": {"prototype": {"isAdmin": true}}}',
    '{"observaciones": "x", "nested": {"__proto__": {"a": 1}}}',
  ]) {
    for (const [method, path] of [
      ['POST', '/denuncias'],
      ['PUT', `/denuncias/${_id}`],
    ] as const) {
      const reply = await api.request(method, path, { token, rawBody })
      t.equal(reply.status, 400, `${method} ${rawBody}`)
      t.equal(reply.body.success, false)
    }
  }
  t.equal(({} as Record<string, unknown>)['isAdmin'], undefined, 'Object.prototype untouched')
  t.equal((await api.request('GET', '/denuncias', { token })).body.data.total, 1, 'nothing was created')
})

t.test('D7: an update with no fields is 400 Datos requeridos', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  for (const module of Object.keys(VALID)) {
    const { _id } = await api.create(module, VALID[module]!())
    const reply = await api.request('PUT', `/${module}/${_id}`, { token, body: {} })
    t.equal(reply.status, 400, module)
    t.equal(reply.body.error, 'Datos requeridos', module)
    const unchanged = await api.request('GET', `/${module}/${_id}`, { token })
    t.equal(unchanged.body.data._version, 1, `${module}: not written`)
  }
})

t.test('D5: an update cannot empty a required field, with null or with an empty string', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  for (const [module, required] of Object.entries(D5_REQUIRED)) {
    const { _id } = await api.create(module, BODIES[module]!())
    for (const field of required) {
      for (const value of [null, '']) {
        const reply = await api.request('PUT', `/${module}/${_id}`, { token, body: { [field]: value } })
        t.equal(reply.status, 400, `${module}.${field} = ${JSON.stringify(value)}`)
        t.equal(reply.body.error, 'Datos requeridos', `${module}.${field} = ${JSON.stringify(value)}: message`)
        t.ok(fieldsNamed(reply.body).includes(field), `${module}.${field}: details name it`)
      }
    }
    t.equal(
      (await api.request('GET', `/${module}/${_id}`, { token })).body.data._version,
      1,
      `${module}: never written`,
    )
  }
})

t.test('D7: an update can clear an optional field with null', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const created = await api.create('denuncias', {
    ...VALID['denuncias']!(),
    observaciones: 'Llamar mañana',
    prioridad: 'alta',
    testigos: ['Juan'],
    denunciante_dni: '12345678Z',
  })
  t.equal(created.observaciones, 'Llamar mañana')
  const reply = await api.request('PUT', `/denuncias/${created._id}`, {
    token,
    body: { observaciones: null, testigos: null, denunciante_dni: null, prioridad: null },
  })
  t.equal(reply.status, 200)
  const got = await api.request('GET', `/denuncias/${created._id}`, { token })
  t.match(got.body.data, { observaciones: null, testigos: null, denunciante_dni: null, prioridad: null, _version: 2 })
  t.equal(got.body.data.descripcion, created.descripcion, 'other fields untouched')
  const vehicle = await api.create('vehiculos', { ...VALID['vehiculos']!(), km_actuales: 5000 })
  const cleared = await api.request('PUT', `/vehiculos/${vehicle._id}`, { token, body: { km_actuales: null } })
  t.equal(cleared.status, 200)
  t.equal(cleared.body.data.km_actuales, null)
})

t.test('D4: open lists (denuncias.tipo, sala092.categoria) accept any non-empty string', async (t) => {
  const api = await startTestApi(t)
  for (const tipo of ['hurto', 'estafa_informatica', 'Ocupación de vivienda', 'ñ']) {
    const reply = await post(api, 'denuncias', { ...VALID['denuncias']!(), tipo })
    t.equal(reply.status, 201, `denuncias.tipo ${tipo}`)
    t.equal(reply.body.data.tipo, tipo)
  }
  for (const categoria of ['trafico', 'animales_sueltos', 'Vertido en vía pública']) {
    const reply = await post(api, 'sala092', { ...VALID['sala092']!(), categoria })
    t.equal(reply.status, 201, `sala092.categoria ${categoria}`)
    t.equal(reply.body.data.categoria, categoria)
  }
  t.equal((await post(api, 'denuncias', { ...VALID['denuncias']!(), tipo: '' })).status, 400, 'but not an empty one')
})

t.test('D7: a number too large for a double (1e400) is 400, not stored as Infinity', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const huge = (body: Record<string, unknown>, field: string) =>
    JSON.stringify({ ...body, [field]: 7 }).replace(`"${field}":7`, `"${field}":1e400`)
  const create = await api.request('POST', '/sanciones', { token, rawBody: huge(VALID['sanciones']!(), 'importe') })
  t.equal(create.status, 400)
  t.same(fieldsNamed(create.body), ['importe'])
  const optional = await api.request('POST', '/sanciones', {
    token,
    rawBody: huge(VALID['sanciones']!(), 'importe_reducido'),
  })
  t.equal(optional.status, 400)
  t.same(fieldsNamed(optional.body), ['importe_reducido'])
  const { _id } = await api.create('sanciones', VALID['sanciones']!())
  const update = await api.request('PUT', `/sanciones/${_id}`, { token, rawBody: huge({}, 'importe') })
  t.equal(update.status, 400)
  t.same(fieldsNamed(update.body), ['importe'])
  t.equal((await api.request('GET', `/sanciones/${_id}`, { token })).body.data.importe, 200, 'unchanged')
  t.equal((await api.request('GET', '/sanciones', { token })).body.data.total, 1, 'nothing else created')
})

t.test('D7: a body over 1 MiB is 413', async (t) => {
  const api = await startTestApi(t)
  const reply = await post(api, 'denuncias', { ...VALID['denuncias']!(), descripcion: 'x'.repeat(1024 * 1024) })
  t.equal(reply.status, 413)
  t.equal(reply.body.success, false)
  const under = await post(api, 'denuncias', { ...VALID['denuncias']!(), descripcion: 'x'.repeat(100_000) })
  t.equal(under.status, 201, 'a long text under the limit is fine')
})
