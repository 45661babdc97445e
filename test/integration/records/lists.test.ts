// D11: list order, paging, filters and sorting.
import t from 'tap'
import { startTestApi, VALID, type TestApi } from '../../helpers/api.js'

const ids = (reply: { body: any }): string[] => reply.body.data.records.map((r: { _id: string }) => r._id)
const fieldsNamed = (body: any): string[] => (body.details ?? []).map((d: { field: string }) => d.field)

async function list(api: TestApi, path: string) {
  return api.request('GET', path, { token: await api.adminToken() })
}

t.test('D11: the default order is creation order, oldest first', async (t) => {
  // The clock stands still: order must come from creation, not from _created.
  const api = await startTestApi(t, { clock: () => new Date('2026-11-20T09:00:00Z') })
  const created: string[] = []
  for (let i = 0; i < 12; i++) created.push((await api.create('atestados', VALID['atestados']!()))._id)
  const reply = await list(api, '/atestados')
  t.same(ids(reply), created)
  t.match(reply.body.data, { total: 12, limit: 100, offset: 0 })
})

t.test('D11: limit and offset page through the list, total counts all', async (t) => {
  const api = await startTestApi(t)
  const created: string[] = []
  for (let i = 0; i < 7; i++) created.push((await api.create('equipamiento', VALID['equipamiento']!()))._id)
  const pages: string[] = []
  for (let offset = 0; offset < 7; offset += 3) {
    const page = await list(api, `/equipamiento?limit=3&offset=${offset}`)
    t.match(page.body.data, { total: 7, limit: 3, offset })
    pages.push(...ids(page))
  }
  t.same(pages, created, 'pages join into the whole list, no gaps or repeats')
  const beyond = await list(api, '/equipamiento?offset=50')
  t.equal(beyond.status, 200)
  t.same(beyond.body.data, { records: [], total: 7, limit: 100, offset: 50 })
})

t.test('D11: limit above 1000 is clamped and data.limit shows 1000', async (t) => {
  const api = await startTestApi(t)
  await api.create('atestados', VALID['atestados']!())
  for (const limit of ['1000', '1001', '5000', '999999999999999']) {
    const reply = await list(api, `/atestados?limit=${limit}`)
    t.equal(reply.status, 200, `limit=${limit}`)
    t.equal(reply.body.data.limit, 1000, `limit=${limit}`)
    t.equal(reply.body.data.records.length, 1)
  }
})

t.test('D11: limit below 1, a negative offset or a non-integer is 400', async (t) => {
  const api = await startTestApi(t)
  for (const query of [
    'limit=0',
    'limit=-5',
    'limit=abc',
    'limit=2.5',
    'limit=',
    'offset=-1',
    'offset=abc',
    'offset=1.5',
    'limit=10&limit=20',
  ]) {
    const reply = await list(api, `/atestados?${query}`)
    t.equal(reply.status, 400, query)
    t.equal(reply.body.success, false)
    t.ok(fieldsNamed(reply.body).includes(query.split('=')[0]!), `${query}: details name the parameter`)
  }
})

t.test('D11: filters are exact matches after converting the value to the field type', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const v100 = await api.create('vehiculos', { ...VALID['vehiculos']!(), km_actuales: 100 })
  await api.create('vehiculos', { ...VALID['vehiculos']!(), km_actuales: 1000 })
  await api.create('vehiculos', { ...VALID['vehiculos']!(), km_actuales: 10 })
  t.same(ids(await list(api, '/vehiculos?km_actuales=100')), [v100._id], 'integer')
  t.same(ids(await list(api, '/vehiculos?km_actuales=0100')), [v100._id], 'integer converted, not compared as text')
  t.equal((await list(api, '/vehiculos?km_actuales=cien')).status, 400, 'not an integer: 400')
  t.equal((await list(api, '/vehiculos?km_actuales=100.5')).status, 400)

  const s200 = await api.create('sanciones', {
    ...VALID['sanciones']!(),
    importe: 200.5,
    fecha_notificacion: '2026-11-25',
  })
  await api.create('sanciones', { ...VALID['sanciones']!(), importe: 200, fecha_notificacion: '2026-11-26' })
  await api.create('sanciones', { ...VALID['sanciones']!(), importe: 20.05 })
  t.same(ids(await list(api, '/sanciones?importe=200.5')), [s200._id], 'decimal')
  t.same(ids(await list(api, '/sanciones?importe=200.50')), [s200._id], 'decimal converted')
  t.same(ids(await list(api, '/sanciones?fecha_notificacion=2026-11-25')), [s200._id], 'date')
  t.equal((await list(api, '/sanciones?fecha_notificacion=2026-02-30')).status, 400, 'not a real date: 400')
  t.equal((await list(api, '/sanciones?estado=inventado')).status, 400, 'enum value outside the list: 400')
  t.match((await list(api, '/sanciones?estado=inventado')).body.details, [{ field: 'estado', message: /borrador/ }])

  const inactive = await api.request('POST', '/usuarios', {
    token,
    body: { username: 'baja', password: 'turno-de-noche-123', nombre: 'De baja', rol: 'consulta', activo: false },
  })
  await api.request('POST', '/usuarios', {
    token,
    body: { username: 'alta', password: 'turno-de-noche-123', nombre: 'De alta', rol: 'consulta' },
  })
  t.same(ids(await list(api, '/usuarios?activo=false')), [inactive.body.data._id], 'boolean false')
  const active = await list(api, '/usuarios?activo=true')
  t.equal(active.body.data.total, 2, 'boolean true: admin and alta')
  t.notOk(ids(active).includes(inactive.body.data._id))
  t.equal((await list(api, '/usuarios?activo=0')).status, 400, 'a boolean is true or false')

  const plate = await api.create('vehiculos', { ...VALID['vehiculos']!(), matricula: '7777-KLM' })
  t.same(ids(await list(api, '/vehiculos?matricula=7777-KLM')), [plate._id], 'text')
  t.equal(
    (await list(api, '/vehiculos?matricula=7777-klm')).body.data.total,
    0,
    'text is an exact, case-sensitive match',
  )
  t.equal((await list(api, '/vehiculos?matricula=7777')).body.data.total, 0, 'not a prefix match')
})

t.test('D11: several filters combine with AND', async (t) => {
  const api = await startTestApi(t)
  const both = await api.create('turnos', { ...VALID['turnos']!(), fecha: '2026-12-01', tipo_turno: 'noche' })
  await api.create('turnos', { ...VALID['turnos']!(), fecha: '2026-12-01', tipo_turno: 'mañana' })
  await api.create('turnos', { ...VALID['turnos']!(), fecha: '2026-12-02', tipo_turno: 'noche' })
  t.same(ids(await list(api, '/turnos?fecha=2026-12-01&tipo_turno=noche')), [both._id])
  t.equal((await list(api, '/turnos?fecha=2026-12-01')).body.data.total, 2)
  t.equal((await list(api, `/turnos?tipo_turno=${encodeURIComponent('mañana')}`)).body.data.total, 1, 'a UTF-8 value')
  t.equal((await list(api, '/turnos?fecha=2026-12-02&tipo_turno=tarde')).body.data.total, 0)
})

t.test('D11: an unknown filter field is 400 naming it', async (t) => {
  const api = await startTestApi(t)
  const reply = await list(api, '/denuncias?color=rojo')
  t.equal(reply.status, 400)
  t.same(fieldsNamed(reply.body), ['color'])
  t.match(reply.body.error, /color/)
  const meta = await list(api, '/denuncias?_hash=abc')
  t.equal(meta.status, 400, 'metadata other than _created_by/_modified_by is not filterable')
  t.same(fieldsNamed(meta.body), ['_hash'])
  const password = await list(api, '/usuarios?password=secreto')
  t.equal(password.status, 400, 'a password can never be a filter')
  t.same(fieldsNamed(password.body), ['password'])
})

t.test('D11: a filter on an array field is 400 naming it', async (t) => {
  const api = await startTestApi(t)
  await api.create('denuncias', { ...VALID['denuncias']!(), testigos: ['Juan'] })
  for (const [module, field] of [
    ['denuncias', 'testigos'],
    ['denuncias', 'adjuntos'],
    ['atestados', 'imputados'],
    ['personal', 'idiomas'],
  ]) {
    const reply = await list(api, `/${module}?${field}=Juan`)
    t.equal(reply.status, 400, `${module}.${field}`)
    t.same(fieldsNamed(reply.body), [field])
  }
})

t.test('D11: _created_by and _modified_by are filterable', async (t) => {
  const api = await startTestApi(t)
  const oficial = await api.userWithRole('oficial')
  const admins = await api.create('denuncias', VALID['denuncias']!())
  const theirs = await api.create('denuncias', VALID['denuncias']!(), oficial.token)
  t.same(ids(await list(api, `/denuncias?_created_by=${oficial.id}`)), [theirs._id])
  t.same(ids(await list(api, `/denuncias?_created_by=${admins._created_by}`)), [admins._id])
  await api.request('PUT', `/denuncias/${admins._id}`, { token: oficial.token, body: { observaciones: 'revisada' } })
  t.same(ids(await list(api, `/denuncias?_modified_by=${oficial.id}`)), [admins._id, theirs._id])
  t.same(ids(await list(api, `/denuncias?_created_by=${admins._created_by}&_modified_by=${oficial.id}`)), [admins._id])
  t.equal((await list(api, '/denuncias?_created_by=USR-2026-99999')).body.data.total, 0)
})

t.test('D11: sort=field and sort=-field order by a scalar field', async (t) => {
  const api = await startTestApi(t)
  const km = [300, 10, 2000, 10, 45]
  const created: { _id: string; km_actuales: number }[] = []
  for (const k of km) created.push(await api.create('vehiculos', { ...VALID['vehiculos']!(), km_actuales: k }))
  const up = await list(api, '/vehiculos?sort=km_actuales')
  t.same(
    up.body.data.records.map((r: { km_actuales: number }) => r.km_actuales),
    [10, 10, 45, 300, 2000],
    'numeric, not text, order',
  )
  t.same(ids(up).slice(0, 2), [created[1]!._id, created[3]!._id], 'ties keep creation order')
  const down = await list(api, '/vehiculos?sort=-km_actuales')
  t.same(
    down.body.data.records.map((r: { km_actuales: number }) => r.km_actuales),
    [2000, 300, 45, 10, 10],
  )
  const paged = await list(api, '/vehiculos?sort=-km_actuales&limit=2&offset=1')
  t.same(
    paged.body.data.records.map((r: { km_actuales: number }) => r.km_actuales),
    [300, 45],
    'sort then page',
  )
  const byVersion = await list(api, '/vehiculos?sort=-_version')
  t.equal(byVersion.status, 200, 'metadata _version is sortable')

  for (const bad of ['color', 'testigos', '-']) {
    const reply = await list(api, `/vehiculos?sort=${bad}`)
    t.equal(reply.status, 400, `sort=${bad}`)
    t.same(fieldsNamed(reply.body), ['sort'])
  }
  t.equal((await list(api, '/denuncias?sort=testigos')).status, 400, 'an array field cannot be sorted')
  t.equal((await list(api, '/denuncias?sort=denunciante_dni')).status, 400, 'an encrypted field cannot be sorted')
})
