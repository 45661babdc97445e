// D42 at login: an account with a confirmed factor gives `codigo` with its password. Without
// it, 401 naming the methods; a TOTP code is taken once and only while current; a recovery code
// once; wrong codes count as failed logins exactly like wrong passwords (D19's waits, no lock).
import t from 'tap'
import { startTestApi, type Reply, type TestApi } from '../../helpers/api.js'
import { auditRows } from '../protection/support.js'
import { assertError } from './envelope.js'
import { controlledClock, enrolTotp, totpCode } from './totp-support.js'

const ATTACKER = '198.51.100.7'
const OWNER = '192.0.2.10'
const ENV = { TRUST_PROXY: '1', LOGIN_MAX_FAILURES: '5', LOGIN_DELAY_SECONDS: '30', LOGIN_MAX_DELAY_SECONDS: '900' }
const REQUIRED = 'Se requiere segundo factor'
const INVALID = 'Código de segundo factor inválido'

const login = (api: TestApi, body: Record<string, unknown>, from = OWNER): Promise<Reply> =>
  api.request('POST', '/auth/login', { body, headers: { 'x-forwarded-for': from } })

t.test('D42: login with a second factor', async (t) => {
  const { clock, advance } = controlledClock()
  const api = await startTestApi(t, { clock, env: ENV })
  const user = await api.userWithRole('agente')
  const { username, password } = user
  const { secret, codes } = await enrolTotp(api, user.token, clock())

  const bare = await login(api, { username, password })
  assertError(t, bare, 401, REQUIRED, 'no codigo')
  t.match(bare.body.details, [{ field: 'codigo', metodos: ['totp', 'recuperacion'] }], 'details name the methods')

  assertError(t, await login(api, { username, password, codigo: 7 }), 400, /Datos inválidos/, 'codigo not a text')
  assertError(
    t,
    await login(api, { username, password: 'not-the-password', codigo: totpCode(secret, clock()) }),
    401,
    'Credenciales inválidas',
    'a wrong password with a right code is a wrong password',
  )
  assertError(
    t,
    await login(api, { username, password, codigo: totpCode(secret, clock()) }),
    401,
    INVALID,
    'the code that confirmed the enrolment is spent',
  )

  advance(30)
  const code = totpCode(secret, clock())
  const ok = await login(api, { username, password, codigo: code })
  t.equal(ok.status, 200, 'a current code: the token as usual')
  t.equal((await api.request('GET', '/me', { token: ok.body.data.token })).status, 200, 'the token works')
  const replay = await login(api, { username, password, codigo: code })
  assertError(t, replay, 401, INVALID, 'D42: a TOTP code is accepted once')
  t.match(replay.body.details, [{ field: 'codigo', metodos: ['totp', 'recuperacion'] }])

  // Two steps old but newer than the last step spent: only the drift window can refuse it.
  advance(90)
  const late = totpCode(secret, new Date(clock().getTime() - 60_000))
  assertError(t, await login(api, { username, password, codigo: late }), 401, INVALID, 'an expired code')
  advance(10)
  t.equal(
    (await login(api, { username, password, codigo: totpCode(secret, new Date(clock().getTime() - 30_000)) })).status,
    200,
    "the previous step's code still passes (one step of drift)",
  )

  const recovery = codes[0] as string
  t.equal(
    (await login(api, { username, password, codigo: recovery.toUpperCase() })).status,
    200,
    'a recovery code, any case',
  )
  assertError(t, await login(api, { username, password, codigo: recovery }), 401, INVALID, 'used once only')
  const listed = await api.request('GET', '/me/segundo-factor', { token: user.token })
  t.equal(listed.body.data.recuperacion_restantes, 9, 'nine left')

  const entries = (await auditRows(api)).filter((r) => r['record_id'] === user.id).map((r) => r['action'])
  t.ok(entries.includes('recuperacion_usada'), 'a recovery code used is an audit entry')
  t.ok(entries.filter((a) => a === 'login_fallido').length >= 4, 'wrong codes are failed logins in the trail')
})

t.test('D42, D19: wrong codes count as failed logins, with the same waits and no lock', async (t) => {
  const { clock, advance } = controlledClock()
  const api = await startTestApi(t, { clock, env: ENV })
  const user = await api.userWithRole('agente')
  const { username, password } = user
  const { secret } = await enrolTotp(api, user.token, clock())
  advance(30)
  for (let i = 1; i <= 5; i++)
    assertError(t, await login(api, { username, password, codigo: '000000' }, ATTACKER), 401, INVALID, `wrong ${i}`)
  const waiting = await login(api, { username, password, codigo: totpCode(secret, clock()) }, ATTACKER)
  assertError(t, waiting, 429, 'Demasiadas solicitudes', 'the failing address waits, right code or not')
  t.equal(waiting.headers['retry-after'], '30')
  const owner = await login(api, { username, password, codigo: totpCode(secret, clock()) }, OWNER)
  t.equal(owner.status, 200, 'the owner logs in from another address')
})

t.test('D42: an account without a factor logs in as before, codigo or not', async (t) => {
  const api = await startTestApi(t)
  const user = await api.userWithRole('consulta')
  const { username, password } = user
  t.equal((await login(api, { username, password })).status, 200)
  t.equal((await login(api, { username, password, codigo: '123456' })).status, 200, 'a codigo is not asked for')
})
