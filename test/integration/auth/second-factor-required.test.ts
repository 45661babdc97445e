// D42: `segundo_factor: obligatorio` on a role. An account of that role without a factor logs in
// with its password and gets a token that reaches only /me, /me/segundo-factor* and logout (403
// elsewhere, details saying to enrol), live-feed tickets included; once it enrols, the same
// token reaches all its role may. Roles that do not require it are untouched.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { REPO_MODULES, startTestApi, type Reply, type StartOptions } from '../../helpers/api.js'
import { listening } from '../live/support.js'
import { assertError } from './envelope.js'
import { controlledClock, enrolTotp } from './totp-support.js'

const FORBIDDEN = 'Sin permisos para esta operación'

/** The shipped modules.yaml with `jefe` requiring a second factor, in a temp dir of the test. */
function modulesRequiringFactor(t: Test): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'records-2fa-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'modules.yaml')
  const text = readFileSync(REPO_MODULES, 'utf8').replace('\n  jefe:\n', '\n  jefe:\n    segundo_factor: obligatorio\n')
  writeFileSync(file, text)
  return { MODULES_FILE: file }
}

function assertMustEnrol(t: Test, reply: Reply, label: string): void {
  assertError(t, reply, 403, FORBIDDEN, label)
  t.match(reply.body.details, [{ field: 'segundo_factor', message: /rol 'jefe' requiere segundo factor/ }], label)
}

t.test('D42: a role that requires a factor reaches only enrolment until it has one', async (t) => {
  const { clock } = controlledClock()
  const options: StartOptions = { clock, env: modulesRequiringFactor(t) }
  const api = await startTestApi(t, options)
  const jefe = await api.userWithRole('jefe') // logs in with the password alone: no factor yet
  const { token } = jefe

  t.equal((await api.request('GET', '/me', { token })).status, 200, '/me answers')
  t.equal((await api.request('GET', '/me/segundo-factor', { token })).status, 200, 'the list answers')
  assertMustEnrol(t, await api.request('GET', '/denuncias', { token }), 'a module list')
  assertMustEnrol(t, await api.request('GET', '/personal', { token }), 'another module')
  assertMustEnrol(
    t,
    await api.request('POST', '/me/password', {
      token,
      body: { password_actual: jefe.password, password_nueva: 'otra-frase-bastante-larga' },
    }),
    'not even a password change',
  )
  assertMustEnrol(t, await api.request('POST', '/eventos/ticket', { token }), 'no live-feed ticket')
  assertMustEnrol(t, await api.request('GET', '/eventos?modulos=denuncias', { token }), 'no live feed')
  assertError(t, await api.request('GET', '/denuncias'), 401, 'Token no proporcionado', 'no token is still 401')

  await enrolTotp(api, token, clock())
  t.equal((await api.request('GET', '/denuncias', { token })).status, 200, 'enrolled: the same token reaches all')

  const agente = await api.userWithRole('agente')
  t.equal((await api.request('GET', '/denuncias', { token: agente.token })).status, 200, 'other roles: as before')
  const admin = await api.adminToken()
  t.equal((await api.request('GET', '/denuncias', { token: admin })).status, 200)

  const other = await api.userWithRole('jefe')
  t.equal((await api.request('POST', '/auth/logout', { token: other.token })).status, 200, 'logout answers')
})

t.test('D42: a live-feed ticket issued before the role required a factor does not open a feed', async (t) => {
  const { api, feed } = await listening(t, modulesRequiringFactor(t))
  const user = await api.userWithRole('agente')
  const issued = await api.request('POST', '/eventos/ticket', { token: user.token })
  t.equal(issued.status, 201)
  const admin = await api.adminToken()
  const moved = await api.request('PUT', `/usuarios/${user.id}`, { token: admin, body: { rol: 'jefe' } })
  t.equal(moved.status, 200, 'now a jefe, without a factor')
  const stream = await feed(`?modulos=denuncias&ticket=${issued.body.data.ticket}`, undefined)
  t.equal(stream.status, 403, 'the ticket is refused')
  t.match(stream.body, { success: false, error: FORBIDDEN, details: [{ field: 'segundo_factor' }] })
})
