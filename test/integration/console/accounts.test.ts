// The console's account management (D21, D42, D44, D46) as an administrador: the accounts as the
// API lists them, a new account through the module's create form, then on it a role change, a
// password reset, a second factor reset and its deactivation, each checked against the API.
// Skipped loudly outside CI without Chromium.
import t, { type Test } from 'tap'
import { chromiumSkip } from '../../helpers/chromium.js'
import { enrolTotp } from '../auth/totp-support.js'
import { buildConsole, consoleService, openConsole, settled, signIn } from './support.js'

const skip = chromiumSkip('the console accounts test')
if (skip === false) buildConsole()

t.test(
  'an administrador creates an account, changes its role, resets it and disables it',
  { skip },
  async (t: Test) => {
    const { api, url } = await consoleService(t)
    const admin = await api.userWithRole('administrador')
    const { codes } = await enrolTotp(api, admin.token, new Date())
    const login = (username: string, password: string) =>
      api.request('POST', '/auth/login', { body: { username, password } })

    const view = await openConsole(t)
    if (view === undefined) return
    const { page } = view
    await page.goto(url)
    await signIn(page, admin.username, admin.password)
    await page.getByLabel('Código de segundo factor').fill(codes[0] ?? '')
    await page.getByRole('button', { name: 'Entrar' }).click()
    await page.getByRole('link', { name: 'Gestión de cuentas' }).click()
    await page.getByRole('heading', { name: 'Gestión de cuentas' }).waitFor()
    const token = (await page.evaluate("sessionStorage.getItem('records.token')")) as string
    const listed = (await api.request('GET', '/usuarios?limit=50', { token })).body.data.records.map((r: any) => r._id)
    t.same(
      await settled(() => page.locator('tbody th a').allTextContents(), listed),
      listed,
      'the accounts the API lists',
    )
    t.same(await view.axe(), [], 'list: no serious or critical accessibility violation')
    await view.shot('accounts-list')

    // Create, through the module's form.
    await page.getByRole('link', { name: 'Nueva cuenta' }).click()
    await page.locator('#f-username').fill('eva.gil')
    await page.locator('#f-password').fill('Primera-clave-2026')
    await page.locator('#f-nombre').fill('Eva Gil')
    await page.locator('#f-rol').fill('agente')
    await page.getByRole('button', { name: 'Crear' }).click()
    const heading = page.getByRole('heading', { name: /^Cuentas de usuario USR-/ })
    await heading.waitFor()
    const id = ((await heading.textContent()) ?? '').replace('Cuentas de usuario ', '').trim()
    t.equal((await login('eva.gil', 'Primera-clave-2026')).status, 200, 'the new account signs in')

    await page.goto(`${url}#/cuentas/${id}`)
    await page.getByRole('heading', { name: `Cuenta ${id}` }).waitFor()
    await page.getByLabel('Nuevo rol').fill('oficial')
    await page.getByRole('button', { name: 'Cambiar el rol' }).click()
    await page.getByText('Rol cambiado').waitFor()
    t.equal((await api.request('GET', `/usuarios/${id}`, { token })).body.data.rol, 'oficial', 'the role changed')
    // A role the API refuses: its answer as worded.
    await page.getByLabel('Nuevo rol').fill('superadmin')
    await page.getByRole('button', { name: 'Cambiar el rol' }).click()
    await page.getByRole('alert').first().waitFor()
    t.equal((await api.request('GET', `/usuarios/${id}`, { token })).body.data.rol, 'oficial', 'refused, unchanged')

    await page.getByLabel('Nueva contraseña').fill('Segunda-clave-2026')
    await page.getByRole('button', { name: 'Restablecer la contraseña' }).click()
    await page.getByText('Contraseña restablecida').waitFor()
    t.equal((await login('eva.gil', 'Primera-clave-2026')).status, 401, 'the old password no longer works')
    const signedIn = await login('eva.gil', 'Segunda-clave-2026')
    t.equal(signedIn.status, 200, 'the new one does')

    // A second factor enrolled by its holder, reset by the administrador.
    await enrolTotp(api, signedIn.body.data.token, new Date())
    t.equal((await login('eva.gil', 'Segunda-clave-2026')).body.error, 'Se requiere segundo factor')
    await page.getByRole('button', { name: 'Restablecer el segundo factor' }).click()
    await view.shot('account-reset-confirm')
    await page.getByRole('button', { name: 'Confirmar el restablecimiento' }).click()
    await page.getByText('Segundo factor restablecido').waitFor()
    t.equal((await login('eva.gil', 'Segunda-clave-2026')).status, 200, 'no second factor asked after the reset')

    await page.getByRole('button', { name: 'Desactivar la cuenta' }).click()
    await page.getByText('Cuenta desactivada').waitFor()
    t.equal((await login('eva.gil', 'Segunda-clave-2026')).status, 401, 'a disabled account cannot sign in')
    await page.getByRole('button', { name: 'Activar la cuenta' }).waitFor()
    t.same(await view.axe(), [], 'account: no serious or critical accessibility violation')
    // Chromium's password manager leaves an empty `style` attribute on the inputs of a form with a
    // password field once it knows a password of this origin; it sets no style. Any set style fails.
    t.same(
      await page.evaluate(
        "[...document.querySelectorAll('[style]')].filter((e) => e.style.length > 0 || e.getAttribute('style') !== '').map((e) => e.outerHTML)",
      ),
      [],
      'no style set',
    )
    await view.shot('account')
    t.same(view.problems, [], 'no console error, page error or CSP violation')
  },
)
