// F6: a wrong `password_actual` on POST /me/password is a failed login of the token's account:
// the same counts per (username, address) and per username as login (D19), the same waits
// (429 with retry-after, no bcrypt compare while waiting), a `password_fallido` audit entry
// naming the address; a right one starts the address over like a login. A stolen token's
// holder slows only the address it fails from: the owner logs in and changes the password from
// their own. On PostgreSQL the counts live in Redis.
import t, { type Test } from 'tap'
import { ADMIN, startTestApi, type Reply, type TestApi } from '../../helpers/api.js'
import { ON_POSTGRES, redisEnv } from '../../helpers/postgres.js'
import { verifyIntegrity } from '../../../src/db/operations/verify-integrity.js'
import { assertError } from './envelope.js'

const THIEF = '198.51.100.7'
const OWNER = '192.0.2.10'
const ENV = { TRUST_PROXY: '1', LOGIN_MAX_FAILURES: '5', LOGIN_DELAY_SECONDS: '30', LOGIN_MAX_DELAY_SECONDS: '900' }
const NEW_PASSWORD = 'cambio-de-turno-42'

function controlledClock() {
  let now = Date.parse('2026-11-23T10:00:00.000Z')
  return { clock: () => new Date(now), advance: (seconds: number) => void (now += seconds * 1000) }
}

const start = (t: Test, env: Record<string, string> = {}) =>
  startTestApi(t, { clock: controlledClock().clock, env: { ...ENV, ...env, ...(ON_POSTGRES ? redisEnv() : {}) } })

const change = (api: TestApi, token: string, current: string, from: string, next = NEW_PASSWORD): Promise<Reply> =>
  api.request('POST', '/me/password', {
    token,
    body: { password_actual: current, password_nueva: next },
    headers: { 'x-forwarded-for': from },
  })

const login = (api: TestApi, username: string, password: string, from: string): Promise<Reply> =>
  api.request('POST', '/auth/login', { body: { username, password }, headers: { 'x-forwarded-for': from } })

const WRONG = /^Datos inválidos: La contraseña actual no es correcta$/

t.test('F6: wrong current passwords make the address wait, unchecked and audited; the owner goes on', async (t) => {
  const api = await start(t)
  const user = await api.userWithRole('consulta')
  for (let i = 1; i <= 5; i++) assertError(t, await change(api, user.token, `no-es-la-mia-${i}`, THIEF), 400, WRONG)
  const waiting = await change(api, user.token, user.password, THIEF)
  assertError(t, waiting, 429, 'Demasiadas solicitudes', 'the sixth try waits, right password or not')
  t.equal(waiting.headers['retry-after'], '30')
  t.match(waiting.body.details, [{ field: 'password_actual', message: /intentos fallidos.*desde esta dirección/ }])
  assertError(t, await login(api, user.username, user.password, THIEF), 429, 'Demasiadas solicitudes', 'login too')
  t.equal(
    (await login(api, user.username, user.password, OWNER)).status,
    200,
    'the password was not changed while waiting, and the owner logs in from an address that did not fail',
  )
  const owner = await change(api, user.token, user.password, OWNER)
  t.equal(owner.status, 200, 'the owner changes the password from their own address')

  const admin = await api.adminToken()
  const audit = await api.request('GET', '/auditoria?accion=password_fallido&limit=100', { token: admin })
  t.equal(audit.status, 200, 'GET /auditoria filters by the new action')
  t.equal(audit.body.data.total, 6, 'five wrong passwords and the refused wait, each audited')
  t.ok(
    audit.body.data.entries.every(
      (e: Record<string, unknown>) => e['user_id'] === user.id && e['record_id'] === user.id && e['address'] === THIEF,
    ),
    'by the token holder, on the account, naming the address',
  )
  const report = await verifyIntegrity(api.service.database, api.service.spec, api.service.codec)
  t.same(report.problems, [], 'the audit chain verifies with the new entries')
})

t.test('F6: a right current password starts the address over, as a login does', async (t) => {
  const api = await start(t)
  const user = await api.userWithRole('consulta')
  for (let i = 1; i <= 4; i++) assertError(t, await change(api, user.token, `no-es-la-mia-${i}`, THIEF), 400, WRONG)
  const ok = await change(api, user.token, user.password, THIEF)
  t.equal(ok.status, 200, 'four failures: under the threshold')
  const token = ok.body.data.token as string
  for (let i = 1; i <= 5; i++)
    assertError(t, await change(api, token, `otra-vez-mal-${i}`, THIEF), 400, WRONG, `new count ${i}`)
  assertError(t, await change(api, token, NEW_PASSWORD, THIEF, 'tercera-clave-larga-9'), 429, 'Demasiadas solicitudes')
})

t.test('F6: wrong current passwords count towards the per-username alert', async (t) => {
  const api = await start(t, { LOGIN_ALERT_FAILURES: '3' })
  const user = await api.userWithRole('consulta')
  for (let i = 1; i <= 3; i++) await change(api, user.token, `no-es-la-mia-${i}`, `203.0.113.${i}`)
  const token = await api.login(ADMIN.username, ADMIN.password)
  const audit = await api.request('GET', '/auditoria?accion=login_alerta', { token })
  t.equal(audit.body.data.total, 1, 'the third failure on the username raises login_alerta')
  t.match(audit.body.data.entries[0], { record_id: user.id })
})
