// D42's passkeys at the API, without a browser: what the option calls give, the shapes refused
// with 400, and answers that name no credential of any account refused with 401 and counted as
// failed logins (D19). The ceremonies themselves run in Chromium: passkey-browser.test.ts.
import t from 'tap'
import { startTestApi, type Reply, type TestApi } from '../../helpers/api.js'
import { auditRows } from '../protection/support.js'
import { assertError } from './envelope.js'

const ENV = { TRUST_PROXY: '1', LOGIN_MAX_FAILURES: '3', LOGIN_DELAY_SECONDS: '30' }
const FROM = { 'x-forwarded-for': '198.51.100.7' }
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/
const post = (api: TestApi, path: string, body?: unknown, token?: string): Promise<Reply> =>
  api.request('POST', path, { body, token, headers: FROM })

/** An answer of the right outer shape that no authenticator signed. */
const forged = (id: string) => ({
  id,
  rawId: id,
  type: 'public-key',
  response: { clientDataJSON: 'e30', authenticatorData: 'AAAA', signature: 'AAAA', attestationObject: 'AAAA' },
  clientExtensionResults: {},
})

t.test('D42: the passkey ceremonies at the API', async (t) => {
  const api = await startTestApi(t, { env: ENV })
  const user = await api.userWithRole('agente')

  const sign = await post(api, '/auth/login/passkey/opciones')
  t.equal(sign.status, 200, 'sign-in options need no token and no body')
  t.match(sign.body.data, { challenge: CHALLENGE, rpId: 'localhost', userVerification: 'required' })
  t.notOk('allowCredentials' in sign.body.data && sign.body.data.allowCredentials.length > 0, 'no account is named')
  const again = await post(api, '/auth/login/passkey/opciones')
  t.not(again.body.data.challenge, sign.body.data.challenge, 'a fresh challenge each time')

  assertError(t, await post(api, '/me/segundo-factor/passkey/opciones'), 401, /token/i, 'enrolment needs a token')
  const enrol = await post(api, '/me/segundo-factor/passkey/opciones', undefined, user.token)
  t.equal(enrol.status, 200)
  t.match(enrol.body.data, {
    challenge: CHALLENGE,
    rp: { id: 'localhost', name: 'municipal-records' },
    user: { name: user.username },
    excludeCredentials: [],
    attestation: 'none',
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  })

  // Shapes: 400 before anything is verified.
  const register = (body: unknown) => post(api, '/me/segundo-factor/passkey', body, user.token)
  assertError(t, await register(undefined), 400, 'Datos requeridos', 'no body')
  assertError(t, await register([1]), 400, /JSON/, 'not an object')
  assertError(t, await register({ id: 'x', rawId: 'x', type: 'public-key' }), 400, 'Datos requeridos', 'no response')
  assertError(t, await register({ ...forged('x'), type: 'otro' }), 400, /Datos inválidos/, 'another type')
  const bogus = await register(forged('x'))
  assertError(t, bogus, 400, /Datos inválidos/, 'an answer no authenticator made')
  t.match(bogus.body.details, [{ field: 'response' }])
  t.same((await api.request('GET', '/me/segundo-factor', { token: user.token })).body.data.factores, [], 'nothing kept')

  assertError(t, await post(api, '/auth/login/passkey', { id: 'x' }), 400, 'Datos requeridos', 'sign-in shape')

  // A credential no account has: 401, a failed login; the address then waits (D19).
  for (let i = 0; i < 3; i += 1)
    assertError(t, await post(api, '/auth/login/passkey', forged('bm8tc3VjaC1rZXk')), 401, 'Credenciales inválidas')
  const held = await post(api, '/auth/login/passkey', forged('bm8tc3VjaC1rZXk'))
  t.equal(held.status, 429, 'after LOGIN_MAX_FAILURES the address waits for that credential')
  const failed = (await auditRows(api)).filter((r) => r['action'] === 'login_fallido')
  t.equal(failed.length, 4, 'each one audited as a failed login')

  // A sign-in challenge is no live-feed ticket, though both wait in one table.
  const feed = await api.request('GET', `/eventos?ticket=${again.body.data.challenge as string}`)
  t.equal(feed.status, 401, 'a challenge opens no feed')
})
