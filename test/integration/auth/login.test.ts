// POST /auth/login (API reference 4.1, D19).
import t from 'tap'
import { ADMIN, startTestApi } from '../../helpers/api.js'
import { assertError } from './envelope.js'

t.test('D19: login', async (t) => {
  const api = await startTestApi(t)
  const admin = await api.adminToken()
  const user = {
    username: 'lucia',
    password: 'ronda-de-barrio-31',
    nombre: 'Lucía Martín',
    rol: 'agente',
    email: 'lucia@example.org',
  }
  const created = await api.request('POST', '/usuarios', { token: admin, body: user })
  t.equal(created.status, 201)
  const id = created.body.data._id as string

  t.test('D19: valid credentials answer 200 with data.token and data.user', async (t) => {
    const reply = await api.request('POST', '/auth/login', {
      body: { username: user.username, password: user.password },
    })
    t.equal(reply.status, 200)
    t.equal(reply.body.success, true)
    t.type(reply.body.data.token, 'string')
    t.match(reply.body.data.token, /^[\w-]+\.[\w-]+\.[\w-]+$/, 'a JWT (D20)')
    t.match(reply.body.data.user, { id, username: user.username, nombre: user.nombre, rol: user.rol })
    t.notOk('password' in reply.body.data.user, 'D22: no password in the user')
    t.notOk(JSON.stringify(reply.body).includes(user.password), 'D22: the password never comes back')
    const me = await api.request('GET', '/me', { token: reply.body.data.token })
    t.equal(me.status, 200, 'the token works')
    t.equal(me.body.data._id, id)
  })

  t.test('D19: wrong password and unknown user get the same 401', async (t) => {
    const wrongPassword = await api.request('POST', '/auth/login', {
      body: { username: user.username, password: 'not-the-password' },
    })
    const unknownUser = await api.request('POST', '/auth/login', {
      body: { username: 'nadie', password: user.password },
    })
    assertError(t, wrongPassword, 401, 'Credenciales inválidas', 'wrong password')
    assertError(t, unknownUser, 401, 'Credenciales inválidas', 'unknown user')
    t.same(wrongPassword.body, unknownUser.body, 'identical bodies')
    t.same(wrongPassword.body, { success: false, error: 'Credenciales inválidas' })
    const caseChanged = await api.request('POST', '/auth/login', {
      body: { username: ADMIN.username, password: ADMIN.password.toUpperCase() },
    })
    assertError(t, caseChanged, 401, 'Credenciales inválidas', 'password compared exactly')
  })

  t.test('D19: missing username or password is 400 Datos requeridos', async (t) => {
    const bodies: Record<string, unknown>[] = [
      { password: user.password },
      { username: user.username },
      {},
      { username: '', password: user.password },
      { username: user.username, password: '' },
      { username: user.username, password: 12345678 },
    ]
    for (const body of bodies) {
      const reply = await api.request('POST', '/auth/login', { body })
      assertError(t, reply, 400, 'Datos requeridos', JSON.stringify(body))
    }
    const noBody = await api.request('POST', '/auth/login')
    assertError(t, noBody, 400, 'Datos requeridos', 'no body at all')
  })

  t.test('D7: a login body that is not a JSON object is 400 JSON inválido', async (t) => {
    for (const rawBody of ['{"username": "lucia", ', 'username=lucia&password=x', '[]', '"lucia"', 'null', '42']) {
      const reply = await api.request('POST', '/auth/login', { rawBody })
      assertError(t, reply, 400, 'JSON inválido', rawBody)
    }
  })

  t.test('D19: a disabled user cannot log in, with the same 401', async (t) => {
    const disabled = await api.request('PUT', `/usuarios/${id}`, { token: admin, body: { activo: false } })
    t.equal(disabled.status, 200)
    t.equal(disabled.body.data.activo, false)
    const reply = await api.request('POST', '/auth/login', {
      body: { username: user.username, password: user.password },
    })
    assertError(t, reply, 401, 'Credenciales inválidas', 'disabled user')
    t.same(reply.body, { success: false, error: 'Credenciales inválidas' }, 'nothing tells a disabled account apart')
    const enabled = await api.request('PUT', `/usuarios/${id}`, { token: admin, body: { activo: true } })
    t.equal(enabled.status, 200)
    t.equal(
      (await api.request('POST', '/auth/login', { body: { username: user.username, password: user.password } })).status,
      200,
      'enabled again: logs in',
    )
  })

  t.test('D19: a deleted user cannot log in', async (t) => {
    const other = await api.request('POST', '/usuarios', { token: admin, body: { ...user, username: 'borrado' } })
    t.equal(other.status, 201)
    t.equal((await api.request('DELETE', `/usuarios/${other.body.data._id}`, { token: admin })).status, 200)
    const reply = await api.request('POST', '/auth/login', { body: { username: 'borrado', password: user.password } })
    assertError(t, reply, 401, 'Credenciales inválidas', 'deleted user')
  })
})
