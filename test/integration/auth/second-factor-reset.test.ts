// D42: an administrator resets a user's second factors with PUT of the account and
// `{"segundo_factor": null}`: the factors and recovery codes go, the user's tokens end, the reset
// is audited; under the rules of any edit of the account (permission, D21's role ceiling, 404).
import t from 'tap'
import { startTestApi } from '../../helpers/api.js'
import { auditRows } from '../protection/support.js'
import { assertError } from './envelope.js'
import { controlledClock, enrolTotp, totpCode } from './totp-support.js'

t.test('D42: PUT of the account with segundo_factor: null resets its factors and ends its tokens', async (t) => {
  const { clock, advance } = controlledClock()
  const api = await startTestApi(t, { clock })
  const user = await api.userWithRole('agente')
  const { secret } = await enrolTotp(api, user.token, clock())
  advance(30)
  const login = { username: user.username, password: user.password }
  const withCode = await api.request('POST', '/auth/login', { body: { ...login, codigo: totpCode(secret, clock()) } })
  t.equal(withCode.status, 200)
  const token = withCode.body.data.token as string
  const admin = await api.userWithRole('administrador')
  const put = (id: string, body: unknown, as = admin.token) =>
    api.request('PUT', `/usuarios/${id}`, { token: as, body })

  assertError(t, await put(user.id, { segundo_factor: 'no' }), 400, /solo admite null/)
  assertError(t, await put(user.id, { segundo_factor: null, nombre: 'Otro' }), 400, /va sola/)
  assertError(t, await put('USR-2026-09999', { segundo_factor: null }), 404, 'Registro no encontrado')
  const consulta = await api.userWithRole('consulta')
  assertError(t, await put(user.id, { segundo_factor: null }, consulta.token), 403, 'Sin permisos para esta operación')
  const superadmin = (await api.request('GET', '/me', { token: await api.adminToken() })).body.data._id as string
  assertError(
    t,
    await put(superadmin, { segundo_factor: null }),
    403,
    'Sin permisos para esta operación',
    "D21: an administrador cannot reset a superadmin's factors",
  )
  t.equal((await api.request('GET', '/me', { token })).status, 200, 'nothing happened so far')

  const reset = await put(user.id, { segundo_factor: null })
  t.equal(reset.status, 200, 'reset')
  t.match(reset.body.data, { _id: user.id, username: user.username }, 'answers the account, unchanged')
  assertError(t, await api.request('GET', '/me', { token }), 401, 'Token inválido o expirado', 'its tokens end')
  const bare = await api.request('POST', '/auth/login', { body: login })
  t.equal(bare.status, 200, 'the password alone logs in again')
  t.same((await api.request('GET', '/me/segundo-factor', { token: bare.body.data.token })).body.data, {
    factores: [],
    recuperacion_restantes: 0,
  })
  const entry = (await auditRows(api)).find((r) => r['action'] === 'segundo_factor_reset')
  t.match(entry, { user_id: admin.id, record_id: user.id }, 'audited, naming who reset whose')
  t.equal(
    (
      await api.request('PUT', `/usuarios/${superadmin}`, {
        token: await api.adminToken(),
        body: { segundo_factor: null },
      })
    ).status,
    200,
    'a superadmin may reset its own (nothing to remove is no error)',
  )
})
