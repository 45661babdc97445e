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

t.test('D42: a stored passkey: encrypted at rest, listed, named at login; its counter only grows', async (t) => {
  const api = await startTestApi(t)
  const user = await api.userWithRole('agente')
  const { factors } = api.service
  const publicKey = new Uint8Array(Buffer.from('a public key of the test, as COSE bytes would be'))
  const by = { userId: user.id }
  const first = await factors.addPasskey(
    user.id,
    { id: 'Y3JlZC1vbmU', publicKey, counter: 0, transports: ['internal'] },
    by,
  )
  t.equal(first?.recoveryCodes?.length, 10, 'the first factor gives the recovery codes')
  const second = await factors.addPasskey(user.id, { id: 'Y3JlZC10d28', publicKey, counter: 5, transports: [] }, by)
  t.same(second, { recoveryCodes: undefined }, 'a later one leaves them')
  t.equal(
    await factors.addPasskey(user.id, { id: 'Y3JlZC1vbmU', publicKey, counter: 0, transports: [] }, by),
    undefined,
  )

  const rows = (await auditRows(api)).filter((r) => r['action'] === 'segundo_factor_alta')
  t.equal(rows.length, 2, 'each enrolment audited')
  const { rows: stored } = await api.service.database.db
    .selectFrom('_second_factors')
    .select(['id', 'kind', 'secret', 'last_counter'])
    .where('account_id', '=', user.id)
    .orderBy('id')
    .execute()
    .then((r) => ({ rows: r }))
  t.same(
    stored.map((r) => [r['id'], r['kind'], Number(r['last_counter'])]),
    [
      ['Y3JlZC10d28', 'passkey', 5],
      ['Y3JlZC1vbmU', 'passkey', 0],
    ],
  )
  const encoded = Buffer.from(publicKey).toString('base64url')
  t.ok(
    stored.every((r) => String(r['secret']).startsWith('v1.') && !String(r['secret']).includes(encoded)),
    'encrypted like a secret',
  )

  const listed = await api.request('GET', '/me/segundo-factor', { token: user.token })
  t.same(listed.body.data.factores.map((f: { id: string; tipo: string }) => [f.id, f.tipo]).sort(), [
    ['Y3JlZC10d28', 'passkey'],
    ['Y3JlZC1vbmU', 'passkey'],
  ])
  const login = await post(api, '/auth/login', { username: user.username, password: user.password })
  assertError(t, login, 401, 'Se requiere segundo factor')
  t.match(login.body.details, [{ metodos: ['passkey', 'recuperacion'], message: /llave de acceso/ }])

  // Counters (WebAuthn): an authenticator that keeps none says 0 every time; one that keeps it must go up.
  const none = await factors.findPasskey('Y3JlZC1vbmU')
  if (none === undefined) return t.fail('found')
  t.same(none.publicKey, publicKey, 'the public key read back')
  t.same(none.transports, ['internal'])
  t.equal(await factors.usePasskey(none, 0), true, 'no counter: 0 and 0 pass')
  const kept = await factors.findPasskey('Y3JlZC10d28')
  if (kept === undefined) return t.fail('found')
  t.equal(await factors.usePasskey(kept, 5), false, 'the same counter again: refused')
  t.equal(await factors.usePasskey(kept, 3), false, 'a lower one: refused')
  t.equal(await factors.usePasskey(kept, 6), true, 'a higher one passes')
  t.equal(await factors.usePasskey(kept, 7), false, 'read before the last use: the stale read loses the race')
  t.equal((await factors.findPasskey('Y3JlZC10d28'))?.counter, 6)
  t.equal(await factors.findPasskey('bm9uZQ'), undefined)
})
