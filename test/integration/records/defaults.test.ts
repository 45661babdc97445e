// D6: what a create fills in when the client leaves it out.
import t from 'tap'
import { startTestApi, VALID } from '../../helpers/api.js'

/** D6, written out: each module's state field and the first state of its list. */
const FIRST_STATE: Record<string, readonly [string, string]> = {
  denuncias: ['estado', 'pendiente'],
  sanciones: ['estado', 'borrador'],
  personal: ['situacion', 'activo'],
  vehiculos: ['estado', 'operativo'],
  sala092: ['estado', 'pendiente'],
  turnos: ['estado', 'planificado'],
  equipamiento: ['estado', 'disponible'],
}

t.test('D6: the state field starts at the first state of its list, in every module with one', async (t) => {
  const api = await startTestApi(t)
  const withState = api.service.spec.modules
    .filter((m) => m.stateField !== undefined)
    .map((m) => m.name)
    .sort()
  t.same(withState, Object.keys(FIRST_STATE).sort(), 'modules.yaml has exactly the state fields of D6')
  for (const [module, [field, first]] of Object.entries(FIRST_STATE)) {
    const record = await api.create(module, VALID[module]!())
    t.equal(record[field], first, `${module}.${field}`)
  }
})

t.test('D6: the first state may be sent on create, and null takes the default', async (t) => {
  const api = await startTestApi(t)
  t.equal((await api.create('denuncias', { ...VALID['denuncias']!(), estado: 'pendiente' })).estado, 'pendiente')
  t.equal((await api.create('vehiculos', { ...VALID['vehiculos']!(), estado: 'operativo' })).estado, 'operativo')
  t.equal((await api.create('turnos', { ...VALID['turnos']!(), estado: null })).estado, 'planificado')
})

t.test("D6: through the API a record is created only in its workflow's creation state (was: any state)", async (t) => {
  const api = await startTestApi(t)
  const reply = await api.request('POST', '/denuncias', {
    token: await api.adminToken(),
    body: { ...VALID['denuncias']!(), estado: 'investigacion' },
  })
  t.equal(reply.status, 409)
  t.same(reply.body, {
    success: false,
    error: 'Transición de estado no permitida',
    details: [{ field: 'estado', message: 'Un registro nuevo solo puede crearse en: pendiente' }],
  })
})

t.test('D6: denuncias.prioridad defaults to media', async (t) => {
  const api = await startTestApi(t)
  t.equal((await api.create('denuncias', VALID['denuncias']!())).prioridad, 'media')
  t.equal((await api.create('denuncias', { ...VALID['denuncias']!(), prioridad: 'urgente' })).prioridad, 'urgente')
})

t.test('D6, D9: sala092.fecha_hora_entrada defaults to the current time in Europe/Madrid', async (t) => {
  let now = new Date('2026-07-15T10:20:30.900Z') // summer: UTC+2
  const api = await startTestApi(t, { clock: () => now })
  const summer = await api.create('sala092', VALID['sala092']!())
  t.equal(summer.fecha_hora_entrada, '2026-07-15 12:20:30')
  now = new Date('2026-01-15T23:05:09Z') // winter: UTC+1, already the next day in Madrid
  const winter = await api.create('sala092', VALID['sala092']!())
  t.equal(winter.fecha_hora_entrada, '2026-01-16 00:05:09')
  const sent = await api.create('sala092', { ...VALID['sala092']!(), fecha_hora_entrada: '2026-01-10 08:00:00' })
  t.equal(sent.fecha_hora_entrada, '2026-01-10 08:00:00', 'a value sent is kept')
})

t.test('D22: usuarios.activo defaults to true', async (t) => {
  const api = await startTestApi(t)
  const user = await api.create('usuarios', {
    username: 'nuevo',
    password: 'turno-de-noche-123',
    nombre: 'Nuevo',
    rol: 'consulta',
  })
  t.equal(user.activo, true)
  t.notOk('password' in user, 'the password is never returned')
})
