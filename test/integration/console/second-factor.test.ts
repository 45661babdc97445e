// The console's second factor (D42, D44) in Debian's headless Chromium: a jefe whose role
// requires a passkey signs in with the password, is shown only the enrolment, enrols a passkey
// with a virtual authenticator, is shown the recovery codes once, continues into the console,
// and later signs in with the passkey alone; an agente enrols a TOTP app from the secret the
// console shows and removes it with a recovery code. Each step is checked against the API's own
// answer for the same account. Skipped loudly outside CI without Chromium.
import t from 'tap'
import { startTestApi } from '../../helpers/api.js'
import { chromiumSkip } from '../../helpers/chromium.js'
import { passkeyOrigin, virtualAuthenticator } from '../auth/passkey-support.js'
import { totpCode } from '../auth/totp-support.js'
import { buildConsole, consoleService, openConsole, signIn } from './support.js'

const skip = chromiumSkip('the console second factor test')
if (skip === false) buildConsole()

t.test(
  'D42, D44: a jefe whose role requires a passkey enrols one in the console and signs in with it',
  { skip },
  async (t) => {
    const { port, origin, env } = await passkeyOrigin(t)
    const api = await startTestApi(t, { env })
    await api.service.app.listen({ port, host: '127.0.0.1' })
    const jefe = await api.userWithRole('jefe')
    const view = await openConsole(t)
    if (view === undefined) return
    const { page } = view
    await virtualAuthenticator(page)
    await page.goto(`${origin}${api.base}/consola/`)

    // The password alone gives a token that reaches only the enrolment: the console says so.
    await signIn(page, jefe.username, jefe.password)
    await page.getByRole('heading', { name: 'Segundo factor' }).waitFor()
    t.equal(await page.getByRole('link', { name: 'Denuncias' }).count(), 0, 'no module is offered before enrolling')
    t.same(await view.axe(), [], 'the enrolment: no serious or critical accessibility violation')
    await page.getByRole('button', { name: 'Añadir llave de acceso' }).click()
    await page.getByRole('heading', { name: 'Códigos de recuperación' }).waitFor()
    const codes = await page.locator('.codes code').allTextContents()
    t.equal(codes.length, 10, 'the ten recovery codes are shown')
    await view.shot('segundo-factor-llave')
    const listed = await api.request('GET', '/me/segundo-factor', { token: jefe.token })
    t.match(listed.body.data, { factores: [{ tipo: 'passkey' }], recuperacion_restantes: 10 }, 'the API holds it')
    t.equal(await page.getByRole('row', { name: /Llave de acceso/ }).count(), 1, 'and the console lists it')
    await page.getByRole('button', { name: 'Continuar' }).click()
    await page.getByRole('heading', { name: 'Módulos' }).waitFor()

    // Signed out, the passkey alone signs in: both factors at once.
    await page.getByRole('button', { name: 'Cerrar sesión' }).click()
    await page.getByText('Sesión cerrada.').waitFor()
    await page.getByRole('button', { name: 'Iniciar sesión con llave de acceso' }).click()
    await page.getByRole('heading', { name: 'Módulos' }).waitFor()
    const me = (await api.request('GET', '/me', { token: jefe.token })).body.data
    t.equal(
      await page.locator('.who').textContent(),
      `${me.nombre ?? me.username} (jefe)`,
      'signed in as the account the passkey belongs to',
    )

    // The password now asks for the passkey (or a recovery code), and a recovery code works.
    await page.getByRole('button', { name: 'Cerrar sesión' }).click()
    await signIn(page, jefe.username, jefe.password)
    await page.getByText('escriba uno de sus códigos de recuperación, o entre con su llave de acceso').waitFor()
    await page.getByLabel('Código de segundo factor').fill(codes[0] ?? '')
    await page.getByRole('button', { name: 'Entrar', exact: true }).click()
    await page.getByRole('heading', { name: 'Módulos' }).waitFor()
    const after = await api.request('GET', '/me/segundo-factor', { token: jefe.token })
    t.equal(after.body.data.recuperacion_restantes, 9, 'the recovery code was used up')
    t.same(view.problems, [], 'no console error, no CSP violation')
  },
)

t.test(
  'D42, D44: an agente enrols a TOTP app in the console and removes it with a recovery code',
  { skip },
  async (t) => {
    const { api, url } = await consoleService(t)
    const agente = await api.userWithRole('agente')
    const view = await openConsole(t)
    if (view === undefined) return
    const { page } = view
    await page.goto(`${url}#/segundo-factor`)
    await signIn(page, agente.username, agente.password)
    await page.getByText('La cuenta no tiene ningún segundo factor.').waitFor()

    await page.getByRole('button', { name: 'Añadir aplicación de autenticación' }).click()
    const secret = (await page.locator('code.secret').first().textContent()) ?? ''
    t.match(secret, /^[A-Z2-7]+=*$/, 'the secret is shown to type into the app')
    t.same(await view.axe(), [], 'the TOTP enrolment: no serious or critical accessibility violation')
    await page.getByLabel('Código de la aplicación').fill('000000')
    await page.getByRole('button', { name: 'Confirmar' }).click()
    await page.getByRole('alert').first().waitFor()
    t.equal(
      (await api.request('GET', '/me/segundo-factor', { token: agente.token })).body.data.factores.length,
      0,
      'a wrong code confirms nothing',
    )
    await page.getByLabel('Código de la aplicación').fill(totpCode(secret, new Date()))
    await page.getByRole('button', { name: 'Confirmar' }).click()
    await page.getByRole('heading', { name: 'Códigos de recuperación' }).waitFor()
    const codes = await page.locator('.codes code').allTextContents()
    t.equal(codes.length, 10, 'the ten recovery codes are shown once')
    await view.shot('segundo-factor-totp')
    t.match(
      (await api.request('GET', '/me/segundo-factor', { token: agente.token })).body.data,
      { factores: [{ tipo: 'totp' }], recuperacion_restantes: 10 },
      'the API holds the TOTP',
    )

    await page.getByRole('row', { name: /TOTP/ }).getByRole('button', { name: 'Quitar' }).click()
    await page.getByLabel('Código actual (aplicación o recuperación)').fill(codes[3] ?? '')
    await page.getByRole('button', { name: 'Quitar' }).click()
    await page.getByText('Segundo factor quitado.').waitFor()
    t.same(
      (await api.request('GET', '/me/segundo-factor', { token: agente.token })).body.data,
      { factores: [], recuperacion_restantes: 0 },
      'removed: the last factor takes its recovery codes with it',
    )
    t.same(view.problems, [], 'no console error, no CSP violation')
  },
)
