// GET /me (API reference 4.3, 2.9).
import t from 'tap'
import { ADMIN, startTestApi } from '../../helpers/api.js'

const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/

t.test('API reference 2.9: GET /me returns _id, username, nombre, rol, email and _created of the caller', async (t) => {
  const api = await startTestApi(t)
  const admin = await api.adminToken()
  const body = {
    username: 'pablo',
    password: 'guardia-de-tarde-7',
    nombre: 'Pablo Sanz',
    rol: 'jefe',
    email: 'pablo@example.org',
  }
  const created = await api.request('POST', '/usuarios', { token: admin, body })
  t.equal(created.status, 201)
  const token = await api.login(body.username, body.password)

  const me = await api.request('GET', '/me', { token })
  t.equal(me.status, 200)
  t.equal(me.body.success, true)
  t.same(me.body.data, {
    _id: created.body.data._id,
    username: 'pablo',
    nombre: 'Pablo Sanz',
    rol: 'jefe',
    email: 'pablo@example.org',
    _created: created.body.data._created,
  })
  t.match(me.body.data._id, /^USR-\d{4}-\d{5}$/)
  t.match(me.body.data._created, TIMESTAMP, 'D9 time format')

  const adminMe = await api.request('GET', '/me', { token: admin })
  t.equal(adminMe.status, 200)
  t.match(adminMe.body.data, { username: ADMIN.username, rol: 'superadmin' })
  t.not(adminMe.body.data._id, me.body.data._id, 'each caller sees themselves')
  t.notOk('password' in adminMe.body.data, 'D22: never the password')
  t.same(Object.keys(adminMe.body.data).sort(), ['_created', '_id', 'email', 'nombre', 'rol', 'username'])

  const renamed = await api.request('PUT', `/usuarios/${created.body.data._id}`, {
    token: admin,
    body: { nombre: 'Pablo Sanz Gil' },
  })
  t.equal(renamed.status, 200)
  t.equal(
    (await api.request('GET', '/me', { token })).body.data.nombre,
    'Pablo Sanz Gil',
    'reflects the account as it is now',
  )
})
