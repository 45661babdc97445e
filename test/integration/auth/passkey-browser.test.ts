// D42's passkeys in Debian's headless Chromium with a virtual authenticator (DevTools' WebAuthn
// domain: CTAP2, internal, resident keys, user verified). A page on the service's own origin
// asks the API for options, calls navigator.credentials.create()/get() and posts the answers:
// enrolment, then sign-in. The refusals are proven with the authenticator's real answers posted
// through the API: a challenge the service never issued, a replayed one, an unknown credential,
// a counter that went back (a cloned authenticator). Skipped loudly outside CI without Chromium.
import type { CDPSession, Page } from 'playwright-core'
import t, { type Test } from 'tap'
import { startTestApi, type TestApi } from '../../helpers/api.js'
import { chromiumSkip, launchChromium } from '../../helpers/chromium.js'
import { auditRows } from '../protection/support.js'
import { assertError } from './envelope.js'
import { passkeyOrigin, virtualAuthenticator } from './passkey-support.js'
import { enrolTotp } from './totp-support.js'

const skip = chromiumSkip('the passkey test')

/**
 * The page's script, as a front end would have it (run in the page: the test has no DOM types).
 * `create`/`get` run a ceremony from the API's options and return the authenticator's answer as
 * JSON; `get` takes options from the API or, to forge a challenge, given ones.
 */
const PAGE_SCRIPT = `
  const call = async (path, token, body) => {
    const headers = { 'content-type': 'application/json' }
    if (token) headers.authorization = 'Bearer ' + token
    const r = await fetch('/api' + path, { method: 'POST', headers, body: JSON.stringify(body ?? {}) })
    return { status: r.status, body: await r.json() }
  }
  window.call = call
  window.create = async (token) => {
    const options = (await call('/me/segundo-factor/passkey/opciones', token)).body.data
    const credential = await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options) })
    return credential.toJSON()
  }
  window.get = async (given) => {
    const options = given ?? (await call('/auth/login/passkey/opciones')).body.data
    const credential = await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options) })
    return credential.toJSON()
  }
`

async function browserOn(
  t: Test,
  origin: string,
): Promise<{ page: Page; cdp: CDPSession; authenticatorId: string } | undefined> {
  const browser = await launchChromium(t)
  if (browser === undefined) return undefined
  const { page } = browser
  await page.goto(`${origin}/api/health`)
  await page.evaluate(PAGE_SCRIPT)
  const { cdp, authenticatorId } = await virtualAuthenticator(page)
  return { page, cdp, authenticatorId }
}

const post = (api: TestApi, path: string, body: unknown, token?: string) => api.request('POST', path, { body, token })

t.test('D42: a passkey enrolled and used to sign in, in Chromium', { skip }, async (t) => {
  const { port, origin, env } = await passkeyOrigin(t)
  const api = await startTestApi(t, { env })
  await api.service.app.listen({ port, host: '127.0.0.1' })
  const user = await api.userWithRole('agente')
  const browser = await browserOn(t, origin)
  if (browser === undefined) return
  const { page, cdp, authenticatorId } = browser

  // Enrolment: options, create(), the answer posted by the page itself.
  const enrolled = (await page.evaluate(
    `window.create(${JSON.stringify(user.token)}).then((a) => window.call('/me/segundo-factor/passkey', ${JSON.stringify(user.token)}, a))`,
  )) as { status: number; body: any }
  t.equal(enrolled.status, 201, 'the passkey is kept')
  t.equal(enrolled.body.data.recuperacion.length, 10, 'a first factor gives the 10 recovery codes')
  const credentialId = enrolled.body.data.id as string
  const listed = await api.request('GET', '/me/segundo-factor', { token: user.token })
  t.match(listed.body.data, { factores: [{ id: credentialId, tipo: 'passkey' }], recuperacion_restantes: 10 })

  // A password is no longer enough; the methods name the passkey.
  const password = await post(api, '/auth/login', { username: user.username, password: user.password })
  assertError(t, password, 401, 'Se requiere segundo factor', 'password only')
  t.match(password.body.details, [{ metodos: ['passkey', 'recuperacion'] }])

  // Sign-in in the page: both factors at once.
  const signedIn = (await page.evaluate(`window.get().then((a) => window.call('/auth/login/passkey', null, a))`)) as {
    status: number
    body: any
  }
  t.equal(signedIn.status, 200, 'a passkey signs in')
  t.equal(signedIn.body.data.user.id, user.id, 'as its account')
  const me = await api.request('GET', '/me', { token: signedIn.body.data.token })
  t.equal(me.status, 200, 'the token works')

  // The refusals, with real answers of the authenticator posted through the API.
  const answer = (await page.evaluate('window.get()')) as Record<string, unknown>
  t.equal((await post(api, '/auth/login/passkey', answer)).status, 200, 'a fresh answer signs in once')
  assertError(
    t,
    await post(api, '/auth/login/passkey', answer),
    401,
    'Credenciales inválidas',
    'its challenge replayed',
  )

  const forged = {
    challenge: 'bm90LWlzc3VlZC1ieS10aGUtc2VydmljZS0xMjM0NTY',
    rpId: 'localhost',
    userVerification: 'required',
  }
  const unissued = (await page.evaluate(`window.get(${JSON.stringify(forged)})`)) as Record<string, unknown>
  assertError(
    t,
    await post(api, '/auth/login/passkey', unissued),
    401,
    'Credenciales inválidas',
    'a challenge never issued',
  )

  const other = (await page.evaluate('window.get()')) as Record<string, unknown>
  const unknown = { ...other, id: 'AAAAAAAAAAAAAAAAAAAAAA', rawId: 'AAAAAAAAAAAAAAAAAAAAAA' }
  assertError(
    t,
    await post(api, '/auth/login/passkey', unknown),
    401,
    'Credenciales inválidas',
    'an unknown credential',
  )

  // A cloned authenticator: the same key with its counter set back.
  const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId })
  const [credential] = credentials
  if (credential === undefined) return t.fail('the virtual authenticator holds the credential')
  await cdp.send('WebAuthn.removeCredential', { authenticatorId, credentialId: credential.credentialId })
  await cdp.send('WebAuthn.addCredential', { authenticatorId, credential: { ...credential, signCount: 1 } })
  const cloned = (await page.evaluate('window.get()')) as Record<string, unknown>
  assertError(t, await post(api, '/auth/login/passkey', cloned), 401, 'Credenciales inválidas', 'a counter gone back')
  await cdp.send('WebAuthn.removeCredential', { authenticatorId, credentialId: credential.credentialId })
  await cdp.send('WebAuthn.addCredential', { authenticatorId, credential: { ...credential, signCount: 1000 } })
  const ahead = (await page.evaluate('window.get()')) as Record<string, unknown>
  t.equal((await post(api, '/auth/login/passkey', ahead)).status, 200, 'the same key with a counter ahead signs in')

  // A passkey-only account removes its passkey with a recovery code (D42); the last factor takes the codes.
  const recovery = enrolled.body.data.recuperacion[0] as string
  const path = `/me/segundo-factor/${credentialId}`
  assertError(t, await api.request('DELETE', path, { token: user.token, body: { codigo: '000000' } }), 400, /Datos/)
  const removed = await api.request('DELETE', path, { token: user.token, body: { codigo: recovery } })
  t.equal(removed.status, 200, 'a recovery code removes the passkey')
  const after = await api.request('GET', '/me/segundo-factor', { token: user.token })
  t.same(after.body.data, { factores: [], recuperacion_restantes: 0 })
  assertError(
    t,
    await post(api, '/auth/login/passkey', await page.evaluate('window.get()')),
    401,
    'Credenciales inválidas',
  )

  const actions = (await auditRows(api)).map((r) => [r['action'], r['record_id']])
  t.same(
    actions.filter(([action]) => action === 'login_fallido').map(([, id]) => id),
    [user.id, user.id, null, user.id, null],
    'each refusal is a failed login (D19): of the account, or of no one for an unknown credential',
  )
  t.ok(
    actions.some(([action, id]) => action === 'segundo_factor_alta' && id === user.id),
    'the enrolment is audited',
  )

  // `segundo_factor: passkey` (jefe here): the password alone gives the restricted token, a TOTP
  // does not lift it, a passkey does; then the passkey signs in to the whole role.
  await cdp.send('WebAuthn.clearCredentials', { authenticatorId })
  const jefe = await api.userWithRole('jefe')
  const denuncias = () => api.request('GET', '/denuncias', { token: jefe.token })
  const mustEnrol = await denuncias()
  assertError(t, mustEnrol, 403, 'Sin permisos para esta operación', 'no passkey yet')
  t.match(mustEnrol.body.details, [{ field: 'segundo_factor', message: /rol 'jefe' requiere una llave de acceso/ }])
  await enrolTotp(api, jefe.token, new Date())
  assertError(t, await denuncias(), 403, 'Sin permisos para esta operación', 'a TOTP does not satisfy it')
  const jefeKey = (await page.evaluate(
    `window.create(${JSON.stringify(jefe.token)}).then((a) => window.call('/me/segundo-factor/passkey', ${JSON.stringify(jefe.token)}, a))`,
  )) as { status: number; body: any }
  t.equal(jefeKey.status, 201)
  t.notOk('recuperacion' in jefeKey.body.data, 'not the first factor: the recovery codes stay as they were')
  t.equal((await denuncias()).status, 200, 'with a passkey the same token reaches all the role may')
  const jefeIn = (await page.evaluate(`window.get().then((a) => window.call('/auth/login/passkey', null, a))`)) as {
    status: number
    body: any
  }
  t.equal(jefeIn.body.data.user.id, jefe.id, 'the passkey signs the jefe in')
  const full = await api.request('GET', '/denuncias', { token: jefeIn.body.data.token })
  t.equal(full.status, 200, 'to everything the role may')
  const jefePassword = await post(api, '/auth/login', { username: jefe.username, password: jefe.password })
  t.match(
    jefePassword.body.details,
    [{ metodos: ['passkey', 'totp', 'recuperacion'] }],
    'the methods name both factors',
  )
})
