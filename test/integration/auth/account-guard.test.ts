// Who may manage which accounts (D21) and how accounts answer (D22).
import t from 'tap'
import { startTestApi } from '../../helpers/api.js'
import { assertError } from './envelope.js'

const FORBIDDEN = 'Sin permisos para esta operación'
let n = 0
const account = (rol: string, extra: Record<string, unknown> = {}) => {
  n += 1
  return { username: `cuenta_${n}`, password: `clave-muy-segura-${n}`, nombre: `Cuenta ${n}`, rol, ...extra }
}

t.test('D21: the account guard', async (t) => {
  const api = await startTestApi(t)
  const superadmin = await api.adminToken()
  const superId = (await api.request('GET', '/me', { token: superadmin })).body.data._id as string
  const admin = await api.userWithRole('administrador')

  t.test('D21: an administrador cannot create a superadmin', async (t) => {
    const body = account('superadmin')
    assertError(t, await api.request('POST', '/usuarios', { token: admin.token, body }), 403, FORBIDDEN)
    const login = await api.request('POST', '/auth/login', {
      body: { username: body.username, password: body.password },
    })
    t.equal(login.status, 401, 'no such account was made')
  })

  t.test('D21: an administrador cannot edit or delete an existing superadmin', async (t) => {
    for (const body of [
      { nombre: 'Cambiado' },
      { rol: 'consulta' },
      { activo: false },
      { password: 'otra-clave-larga' },
    ])
      assertError(
        t,
        await api.request('PUT', `/usuarios/${superId}`, { token: admin.token, body }),
        403,
        FORBIDDEN,
        `PUT ${JSON.stringify(body)}`,
      )
    assertError(
      t,
      await api.request('DELETE', `/usuarios/${superId}`, { token: admin.token }),
      403,
      FORBIDDEN,
      'DELETE',
    )
    const me = await api.request('GET', '/me', { token: superadmin })
    t.match(me.body.data, { rol: 'superadmin', nombre: 'Administrador inicial' }, 'the superadmin is unchanged')
    t.equal((await api.request('GET', `/usuarios/${superId}`, { token: admin.token })).status, 200, 'but may read it')
  })

  t.test('D21: an administrador cannot turn an account into a superadmin', async (t) => {
    const created = await api.request('POST', '/usuarios', { token: admin.token, body: account('consulta') })
    t.equal(created.status, 201)
    const raise = await api.request('PUT', `/usuarios/${created.body.data._id}`, {
      token: admin.token,
      body: { rol: 'superadmin' },
    })
    assertError(t, raise, 403, FORBIDDEN)
    t.equal(
      (await api.request('GET', `/usuarios/${created.body.data._id}`, { token: admin.token })).body.data.rol,
      'consulta',
    )
  })

  t.test('D21: an administrador manages a consulta account', async (t) => {
    const created = await api.request('POST', '/usuarios', { token: admin.token, body: account('consulta') })
    t.equal(created.status, 201)
    const id = created.body.data._id as string
    const edited = await api.request('PUT', `/usuarios/${id}`, {
      token: admin.token,
      body: { nombre: 'Consulta renombrada', rol: 'agente' },
    })
    t.equal(edited.status, 200)
    t.match(edited.body.data, { nombre: 'Consulta renombrada', rol: 'agente' })
    t.equal((await api.request('DELETE', `/usuarios/${id}`, { token: admin.token })).status, 200)
    t.equal((await api.request('GET', `/usuarios/${id}`, { token: admin.token })).status, 404)
  })

  t.test('D21: a superadmin may manage another superadmin', async (t) => {
    const created = await api.request('POST', '/usuarios', { token: superadmin, body: account('superadmin') })
    t.equal(created.status, 201)
    t.equal(
      (await api.request('PUT', `/usuarios/${created.body.data._id}`, { token: superadmin, body: { nombre: 'Otro' } }))
        .status,
      200,
    )
    t.equal((await api.request('DELETE', `/usuarios/${created.body.data._id}`, { token: superadmin })).status, 200)
  })

  t.test('D21: roles without usuarios permissions cannot touch accounts', async (t) => {
    const target = await api.request('POST', '/usuarios', { token: superadmin, body: account('consulta') })
    const id = target.body.data._id as string
    for (const role of ['jefe', 'oficial', 'agente', 'consulta']) {
      const { token, id: own } = await api.userWithRole(role)
      assertError(t, await api.request('GET', '/usuarios', { token }), 403, FORBIDDEN, `${role} lists`)
      assertError(
        t,
        await api.request('POST', '/usuarios', { token, body: account('consulta') }),
        403,
        FORBIDDEN,
        `${role} creates`,
      )
      assertError(
        t,
        await api.request('PUT', `/usuarios/${id}`, { token, body: { nombre: 'x' } }),
        403,
        FORBIDDEN,
        `${role} edits`,
      )
      assertError(
        t,
        await api.request('PUT', `/usuarios/${own}`, { token, body: { rol: 'superadmin' } }),
        403,
        FORBIDDEN,
        `${role} raises own role`,
      )
      assertError(t, await api.request('DELETE', `/usuarios/${id}`, { token }), 403, FORBIDDEN, `${role} deletes`)
    }
  })

  t.test('D21: nobody raises their own role', async (t) => {
    const raise = await api.request('PUT', `/usuarios/${admin.id}`, { token: admin.token, body: { rol: 'superadmin' } })
    assertError(t, raise, 403, FORBIDDEN)
    t.equal(
      (await api.request('GET', '/me', { token: admin.token })).body.data.rol,
      'administrador',
      'still administrador',
    )
    t.equal(
      (await api.request('POST', '/usuarios', { token: admin.token, body: { ...account('superadmin') } })).status,
      403,
    )
  })
})

t.test('D22: account answers and password rules', async (t) => {
  const api = await startTestApi(t)
  const admin = await api.adminToken()
  const body = account('agente', { email: 'agente@example.org' })
  const texts: string[] = []
  const keep = <R extends { body: unknown }>(reply: R): R => {
    texts.push(JSON.stringify(reply.body))
    return reply
  }
  const created = keep(await api.request('POST', '/usuarios', { token: admin, body }))
  t.equal(created.status, 201)
  t.equal(created.body.data.activo, true, 'D22: activo defaults to true')
  const id = created.body.data._id as string
  keep(await api.request('GET', `/usuarios/${id}`, { token: admin }))
  const list = keep(await api.request('GET', '/usuarios', { token: admin }))
  t.ok(list.body.data.records.length >= 2)
  const newPassword = 'nueva-clave-segura'
  const updated = keep(await api.request('PUT', `/usuarios/${id}`, { token: admin, body: { password: newPassword } }))
  t.equal(updated.status, 200)
  keep(await api.request('GET', `/usuarios?username=${body.username}`, { token: admin }))
  const records = [created.body.data, updated.body.data, ...list.body.data.records]
  for (const record of records) t.notOk('password' in record, `D22: no password field in ${record._id}`)
  for (const text of texts) {
    t.notOk(text.includes(body.password), 'D22: the password never comes back')
    t.notOk(text.includes(newPassword), 'D22: the new password never comes back')
    t.notOk(/\$2[aby]\$/.test(text), 'D22: nor its bcrypt hash')
  }
  t.equal(
    (await api.request('POST', '/auth/login', { body: { username: body.username, password: body.password } })).status,
    401,
    'the old password no longer works',
  )
  t.equal(
    (await api.request('POST', '/auth/login', { body: { username: body.username, password: newPassword } })).status,
    200,
    'the new one does',
  )

  const short = await api.request('POST', '/usuarios', {
    token: admin,
    body: { ...account('consulta'), password: 'corta12' },
  })
  assertError(t, short, 400, /password/, 'D22: a password of 7 characters is refused on create')
  t.notOk(JSON.stringify(short.body).includes('corta12'), 'and the refusal does not echo it')
  const shortUpdate = await api.request('PUT', `/usuarios/${id}`, { token: admin, body: { password: 'corta12' } })
  assertError(t, shortUpdate, 400, /password/, 'D22: and on update')
  t.equal(
    (
      await api.request('POST', '/usuarios', {
        token: admin,
        body: { ...account('consulta'), password: 'doce-letras1' },
      })
    ).status,
    201,
    'exactly 12 is enough for a role that manages no accounts',
  )
  const badRole = await api.request('POST', '/usuarios', { token: admin, body: account('capitan') })
  assertError(t, badRole, 400, /rol/, 'D22: rol must be one of the roles')
})
