// Brute force is slowed per username and client address, never by a lock
// that anyone can pull. The owner logs in from an address that did not fail; the failing
// address waits, longer after each failure; many failures on one username raise an alert;
// the counts are shared by every instance and survive a restart (database, or Redis in the
// PostgreSQL pass). Addresses come through one trusted proxy (TRUST_PROXY=1).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { ADMIN, startTestApi, type Reply, type StartOptions, type TestApi } from '../../helpers/api.js'
import { ON_POSTGRES, redisEnv } from '../../helpers/postgres.js'
import { captureLogs } from '../protection/support.js'
import { assertError } from './envelope.js'

const ATTACKER = '198.51.100.7'
const OWNER = '192.0.2.10'
const TOO_MANY = 'Demasiadas solicitudes'
const ENV = { TRUST_PROXY: '1', LOGIN_MAX_FAILURES: '5', LOGIN_DELAY_SECONDS: '30', LOGIN_MAX_DELAY_SECONDS: '900' }

function controlledClock() {
  let now = Date.parse('2026-11-23T10:00:00.000Z')
  return { clock: () => new Date(now), advance: (seconds: number) => void (now += seconds * 1000) }
}

const login = (api: TestApi, username: string, password: string, from: string): Promise<Reply> =>
  api.request('POST', '/auth/login', { body: { username, password }, headers: { 'x-forwarded-for': from } })

const BAD = 'Credenciales inválidas'
const CONSULTA = { username: 'consulta_1', password: 'password-consulta-1' }

function assertWait(t: Test, reply: Reply, seconds: number, label: string): void {
  assertError(t, reply, 429, TOO_MANY, label)
  t.equal(reply.headers['retry-after'], String(seconds), `${label}: retry-after ${seconds}`)
  const why = [{ field: 'username', message: /intentos fallidos.*desde esta dirección/ }]
  t.match(reply.body.details, why, `${label}: details say why`)
}

t.test('an attacker failing from one address cannot stop the owner logging in from another', async (t) => {
  const { clock, advance } = controlledClock()
  const api = await startTestApi(t, { clock, env: ENV })
  await api.userWithRole('consulta') // consulta_1 / password-consulta-1
  const { username, password } = CONSULTA
  for (let i = 1; i <= 5; i++)
    assertError(t, await login(api, username, `wrong-${i}`, ATTACKER), 401, BAD, `failure ${i}`)
  assertWait(t, await login(api, username, password, ATTACKER), 30, 'the failing address waits, right password or not')
  t.equal((await login(api, username, password, OWNER)).status, 200, 'the owner logs in from their own address')
  t.equal((await login(api, username, password, OWNER)).status, 200, 'again and again')
  for (let i = 0; i < 10; i++) await login(api, username, 'wrong', ATTACKER)
  const again = await login(api, username, 'wrong', ATTACKER)
  assertWait(t, again, 30, 'tries while waiting are refused unchecked, the wait stays')

  // Progressive, not a lock: after each wait one more try is answered, and a failure doubles the wait.
  const waits: number[] = []
  for (let i = 0; i < 7; i++) {
    advance(Number((await login(api, username, 'wrong', ATTACKER)).headers['retry-after']))
    assertError(t, await login(api, username, 'wrong', ATTACKER), 401, BAD, `after wait ${i + 1}: answered`)
    waits.push(Number((await login(api, username, 'wrong', ATTACKER)).headers['retry-after']))
  }
  t.same(waits, [60, 120, 240, 480, 900, 900, 900], 'doubling from LOGIN_DELAY_SECONDS up to LOGIN_MAX_DELAY_SECONDS')
  const other = await login(api, ADMIN.username, ADMIN.password, ATTACKER)
  t.equal(other.status, 200, 'the address is not blocked for other usernames')

  // D19: an unknown username is counted the same way, so a wait tells nothing about who exists.
  for (let i = 0; i < 5; i++) await login(api, 'nadie', 'wrong', ATTACKER)
  assertWait(t, await login(api, 'nadie', 'wrong', ATTACKER), 30, 'unknown username')

  const token = await api.adminToken()
  const audit = await api.request('GET', '/auditoria?accion=login_fallido&limit=1000', { token })
  t.ok(audit.body.data.total >= 40, 'every refused attempt, waiting ones included, is audited as login_fallido (D18)')
})

t.test('the right password after the wait logs in and starts that address over', async (t) => {
  const { clock, advance } = controlledClock()
  const api = await startTestApi(t, { clock, env: ENV })
  for (let i = 0; i < 5; i++) await login(api, ADMIN.username, 'wrong', ATTACKER)
  assertWait(t, await login(api, ADMIN.username, ADMIN.password, ATTACKER), 30, 'waiting')
  advance(29)
  assertWait(t, await login(api, ADMIN.username, ADMIN.password, ATTACKER), 1, 'a second before the end')
  advance(1)
  const right = () => login(api, ADMIN.username, ADMIN.password, ATTACKER)
  t.equal((await right()).status, 200, 'the wait is over: the password works')
  for (let i = 0; i < 4; i++)
    assertError(t, await login(api, ADMIN.username, 'wrong', ATTACKER), 401, BAD, `new count ${i + 1}`)
  t.equal((await right()).status, 200, 'four new failures: under the threshold')
})

t.test('past the per-username ceiling: an alert; failing addresses wait, clean ones do not', async (t) => {
  const { clock } = controlledClock()
  const logs = captureLogs()
  const env = { ...ENV, LOGIN_ALERT_FAILURES: '10' }
  const api = await startTestApi(t, { clock, env, logger: { level: 'info', stream: logs.stream } })
  // A spread attack: ten addresses, one failure each, none near its own threshold.
  for (let i = 1; i <= 9; i++) await login(api, ADMIN.username, 'wrong', `203.0.113.${i}`)
  t.notMatch(logs.text(), /login_alerta/, 'no alert below the ceiling')
  const early = await login(api, ADMIN.username, ADMIN.password, '203.0.113.1')
  t.equal(early.status, 200, 'below the ceiling one failure does not hold an address back')
  await login(api, ADMIN.username, 'wrong', '203.0.113.10')
  const lines = logs
    .text()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
  const alerts = lines.filter((l) => l['event'] === 'login_alerta')
  t.equal(alerts.length, 1, 'one alert at the ceiling')
  const logged = { level: 50, username: ADMIN.username, failures: 10, msg: /Posible ataque/ }
  t.match(alerts[0], logged, 'logged at error, naming the username')
  const token = await api.login(ADMIN.username, ADMIN.password)
  const audit = await api.request('GET', '/auditoria?accion=login_alerta', { token })
  t.equal(audit.body.data.total, 1, 'and audited as login_alerta (D18)')
  t.match(audit.body.data.entries[0], { action: 'login_alerta', record_id: /^USR-/ }, 'on the attacked account')

  const failedOnce = await login(api, ADMIN.username, ADMIN.password, '203.0.113.10')
  assertWait(t, failedOnce, 30, 'past the ceiling an address that failed once waits')
  const owner = await login(api, ADMIN.username, ADMIN.password, OWNER)
  t.equal(owner.status, 200, 'the owner logs in from an address that did not fail')
})

/** Two services on one database (and one Redis in the PostgreSQL pass), as two instances. */
function sharedOptions(t: Test, clock: () => Date): StartOptions & { dataDir: string } {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-login-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  return { dataDir, clock, env: { ...ENV, ...(ON_POSTGRES ? redisEnv() : {}) } }
}

t.test('two instances share the counts and a restart keeps them', async (t) => {
  const { clock } = controlledClock()
  const options = sharedOptions(t, clock)
  await t.test('two instances count together', async (t) => {
    const a = await startTestApi(t, options)
    const b = await startTestApi(t, options)
    for (let i = 0; i < 3; i++) await login(a, ADMIN.username, 'wrong', ATTACKER)
    for (let i = 0; i < 2; i++)
      assertError(t, await login(b, ADMIN.username, 'wrong', ATTACKER), 401, BAD, `b, failure ${i + 4}`)
    assertWait(t, await login(a, ADMIN.username, ADMIN.password, ATTACKER), 30, 'a sees the failures made on b')
    assertWait(t, await login(b, ADMIN.username, ADMIN.password, ATTACKER), 30, 'and b those made on a')
  })
  await t.test('after a restart', async (t) => {
    const c = await startTestApi(t, options)
    const restarted = await login(c, ADMIN.username, ADMIN.password, ATTACKER)
    assertWait(t, restarted, 30, 'the restarted service still holds the address back')
    t.equal((await login(c, ADMIN.username, ADMIN.password, OWNER)).status, 200, 'and lets the owner in')
  })
})
