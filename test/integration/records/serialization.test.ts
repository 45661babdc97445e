// Success bodies go through compiled fast-json-stringify serializers: the text
// must be exactly what JSON.stringify gave before, for every kind of value, masked or not,
// and errors must keep their envelope.
import t from 'tap'
import { startTestApi, VALID } from '../../helpers/api.js'

const TRICKY = 'Ñandú "citado" \\ barra \u2028 línea \u0001 control 😀'

t.test('compiled serializers write what JSON.stringify wrote', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const reader = await api.userWithRole('consulta')
  const raw = async (method: string, path: string, body?: unknown, as = token) => {
    const response = await api.service.app.inject({
      method: method as 'GET',
      url: `${api.base}${path}`,
      headers: { authorization: `Bearer ${as}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    })
    return { status: response.statusCode, text: response.body, type: response.headers['content-type'] }
  }
  const denuncia = {
    ...VALID['denuncias']!(),
    denunciante_nombre: TRICKY,
    denunciante_dni: TRICKY,
    testigos: [{ nombre: TRICKY, edad: 40 }, 'x', 1.5, null],
    observaciones: null,
  }
  const created = await raw('POST', '/denuncias', denuncia)
  t.equal(created.status, 201)
  const record = JSON.parse(created.text).data
  t.equal(record.denunciante_nombre, TRICKY, 'plain string kept')
  t.equal(record.denunciante_dni, TRICKY, 'encrypted string kept')
  t.same(record.testigos, denuncia.testigos, 'array kept')
  t.equal(record.observaciones, null, 'null kept')
  t.equal(record._version, 1)
  const sancion = await raw('POST', '/sanciones', {
    ...VALID['sanciones']!(),
    importe: 12.5,
    puntos_carnet: 3,
    fecha_notificacion: '2026-11-20',
  })
  t.equal(JSON.parse(sancion.text).data.importe, 12.5, 'decimal kept')
  t.equal(JSON.parse(sancion.text).data.puntos_carnet, 3, 'integer kept')
  const bodies: Record<string, { status: number; text: string; type: unknown }> = {
    create: created,
    'create (numbers, dates)': sancion,
    get: await raw('GET', `/denuncias/${record._id}`),
    'get masked': await raw('GET', `/denuncias/${record._id}`, undefined, reader.token),
    list: await raw('GET', '/denuncias?limit=5'),
    'list masked': await raw('GET', '/denuncias', undefined, reader.token),
    'list of accounts (booleans)': await raw('GET', '/usuarios'),
    update: await raw('PUT', `/denuncias/${record._id}`, { prioridad: 'alta' }),
  }
  for (const [what, reply] of Object.entries(bodies)) {
    t.ok(reply.status === 200 || reply.status === 201, `${what}: ${reply.status}`)
    t.equal(reply.text, JSON.stringify(JSON.parse(reply.text)), `${what}: byte-identical to JSON.stringify`)
    t.equal(reply.type, 'application/json; charset=utf-8', `${what}: still labelled JSON (a browser client needs it)`)
  }
  t.equal(JSON.parse(bodies['get masked']!.text).data.denunciante_dni, '***', 'masked value written as the mask')
  t.equal(typeof JSON.parse(bodies['list of accounts (booleans)']!.text).data.records[0].activo, 'boolean')
  const listed = JSON.parse(bodies['list']!.text).data
  t.same(Object.keys(listed), ['records', 'total', 'limit', 'offset'])
  t.same(listed.records[0], JSON.parse(bodies['get']!.text).data, 'a listed record is the record')

  const missing = await raw('GET', '/denuncias/DEN-2026-99999')
  t.same(JSON.parse(missing.text), { success: false, error: 'Registro no encontrado' }, 'errors keep their envelope')
})
