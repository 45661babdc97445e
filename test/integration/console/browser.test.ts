// The console (D44, D46) in Debian's headless Chromium against a started service: an agente's
// lists equal what the API answers the agente, a record created, edited, moved and reloaded on a
// version conflict through the forms, history and earlier versions, token expiry; an
// administrador signing in with a second factor; an oficial asked for the motivo personal
// requires. Every screen under the served CSP with no violation, and axe-core finds nothing
// serious or critical. Skipped loudly outside CI without Chromium.
import type { Page } from 'playwright-core'
import t, { type Test } from 'tap'
import { VALID } from '../../helpers/api.js'
import { chromiumSkip } from '../../helpers/chromium.js'
import { enrolTotp } from '../auth/totp-support.js'
import { eventually } from '../protection/support.js'
import { buildConsole, consoleService, listedIds, openConsole, settled, type ConsolePage, signIn } from './support.js'

const skip = chromiumSkip('the console test')
if (skip === false) buildConsole()

const ids = (reply: { body: any }): string[] => reply.body.data.records.map((r: any) => r._id as string)

/** The edit form holds the record (its GET answered): `lugar_hechos` shows `place`. */
async function formLoaded(page: Page, place: string) {
  await settled(() => page.locator('#f-lugar_hechos').inputValue(), place)
}

async function noProblems(t: Test, view: ConsolePage, screen: string) {
  t.same(await view.axe(), [], `${screen}: no serious or critical accessibility violation`)
  // CSSOM styles escape style-src; the console sets none: classes only.
  t.equal(await view.page.evaluate("document.querySelectorAll('[style]').length"), 0, `${screen}: no style attribute`)
  await view.shot(screen)
}

t.test('an agente: lists as the API answers them, a record created, edited and moved', { skip }, async (t) => {
  const { api, url } = await consoleService(t)
  const year = new Date().getFullYear()
  const agente = await api.userWithRole('agente', { personal_id: `PER-${year}-00001` })
  // Some denuncias the agente sees (assigned to them, or theirs), some it does not.
  for (let i = 0; i < 4; i += 1)
    await api.create('denuncias', { ...VALID['denuncias']!(), agente_asignado: `PER-${year}-00001`, tipo: `t${4 - i}` })
  for (let i = 0; i < 3; i += 1) await api.create('denuncias', { ...VALID['denuncias']!(), lugar_hechos: 'Puerto' })
  await api.create('denuncias', { ...VALID['denuncias']!(), prioridad: 'alta' }, agente.token)
  // Enough of them for a second page of 20.
  for (let i = 0; i < 18; i += 1)
    await api.create('denuncias', { ...VALID['denuncias']!(), agente_asignado: `PER-${year}-00001`, tipo: `z${i}` })
  const asAgente = (path: string) => api.request('GET', path, { token: agente.token })

  const view = await openConsole(t)
  if (view === undefined) return
  const { page } = view
  const started = Date.now()
  const response = await page.goto(url)
  await page.getByRole('heading', { name: 'Iniciar sesión' }).waitFor()
  t.comment(`first screen (sign-in) shown in ${Date.now() - started} ms`)
  const csp = response?.headers()['content-security-policy'] ?? ''
  t.match(csp, /default-src 'self'/, 'the page has its strict CSP')
  t.notMatch(csp, /unsafe-inline|unsafe-eval/, 'no inline script or style allowed')
  await noProblems(t, view, 'sign-in')

  await signIn(view.page, agente.username, agente.password)
  await page.getByRole('heading', { name: 'Módulos' }).waitFor()
  const modules = (await asAgente('/me/modulos')).body.data.map((m: any) => m.descripcion)
  t.same(await page.locator('ul.modules a').allTextContents(), modules, 'the modules of GET /me/modulos')
  await noProblems(t, view, 'modules')

  await page.getByRole('link', { name: 'Denuncias' }).click()
  await page.getByRole('heading', { name: 'Denuncias' }).waitFor()
  const first = await asAgente('/denuncias?limit=20')
  const expected = ids(first)
  t.equal(first.body.data.total, 23, 'the agente sees its 23 denuncias, not the other 3')
  t.same(await settled(() => listedIds(page), expected), expected, 'the console lists what the API gives the agente')
  await page.getByText('23 registros · página 1 de 2').waitFor()
  await noProblems(t, view, 'denuncias-list')
  await page.getByRole('button', { name: 'Siguiente' }).click()
  const second = ids(await asAgente('/denuncias?limit=20&offset=20'))
  t.equal(second.length, 3)
  t.same(await settled(() => listedIds(page), second), second, 'and its second page')
  await page.getByRole('button', { name: 'Anterior' }).click()
  t.same(await settled(() => listedIds(page), expected), expected, 'and back')

  await page.getByRole('button', { name: /^Tipo/ }).click()
  const sorted = ids(await asAgente('/denuncias?limit=20&sort=tipo'))
  t.same(await settled(() => listedIds(page), sorted), sorted, 'sorted by tipo as the API sorts')
  await page.getByRole('button', { name: /^Tipo/ }).click()
  const descending = ids(await asAgente('/denuncias?limit=20&sort=-tipo'))
  t.same(await settled(() => listedIds(page), descending), descending, 'and descending on a second click')

  await page.getByLabel('Filtrar por campo').selectOption('prioridad')
  await page.getByLabel('Valor').fill('alta')
  await page.getByRole('button', { name: 'Aplicar' }).click()
  const filtered = ids(await asAgente('/denuncias?limit=20&sort=-tipo&prioridad=alta'))
  t.equal(filtered.length, 1)
  t.same(await settled(() => listedIds(page), filtered), filtered, 'filtered as the API filters')
  await page.getByLabel('Filtrar por campo').selectOption('')
  await page.getByLabel('Buscar texto').fill('plaza')
  await page.getByRole('button', { name: 'Aplicar' }).click()
  const found = ids(await asAgente('/denuncias?limit=20&sort=-tipo&q=plaza'))
  t.same(await settled(() => listedIds(page), found), found, 'text search as the API searches')

  // Create: the fields the agente writes; agente_asignado shown disabled, filled by the API.
  await page.getByRole('link', { name: 'Nuevo registro' }).click()
  await page.getByRole('heading', { name: /Nuevo registro/ }).waitFor()
  t.ok(await page.locator('#f-agente_asignado').isDisabled(), 'a field the agente cannot write is disabled')
  await page.locator('#f-denunciante_nombre').fill('Eva Gil')
  await page.locator('#f-tipo').fill('robo')
  await page.locator('#f-fecha_hechos').fill('2026-11-21 09:15:00')
  await page.locator('#f-lugar_hechos').fill('Plaza Mayor')
  await page.locator('#f-descripcion').fill('Sustracción de bicicleta')
  await page.locator('#f-testigos').fill('["Juan"]')
  await noProblems(t, view, 'create-form')
  await page.getByRole('button', { name: 'Crear' }).click()
  const heading = page.getByRole('heading', { name: /^Denuncias DEN-/ })
  await heading.waitFor()
  const id = ((await heading.textContent()) ?? '').replace('Denuncias ', '').trim()
  const created = await asAgente(`/denuncias/${id}`)
  t.match(created.body.data, {
    denunciante_nombre: 'Eva Gil',
    tipo: 'robo',
    testigos: ['Juan'],
    estado: 'pendiente',
    agente_asignado: `PER-${year}-00001`,
    _version: 1,
  })
  await page.locator('dl.fields dd', { hasText: 'Eva Gil' }).waitFor()
  await noProblems(t, view, 'record-view')

  // Edit with If-Match; then history with old and new values, and version 1.
  await page.getByRole('link', { name: 'Editar' }).click()
  await formLoaded(page, 'Plaza Mayor')
  await page.locator('#f-lugar_hechos').fill('Calle Mayor 1')
  await noProblems(t, view, 'edit-form')
  await page.getByRole('button', { name: 'Guardar cambios' }).click()
  await page.getByRole('cell', { name: /Plaza Mayor → Calle Mayor 1/ }).waitFor()
  t.equal((await asAgente(`/denuncias/${id}`)).body.data.lugar_hechos, 'Calle Mayor 1', 'the edit reached the API')
  await page.getByRole('button', { name: 'Versión 1' }).click()
  await page.locator('dl[aria-label="Versión 1"] dd', { hasText: 'Plaza Mayor' }).waitFor()
  await view.shot('record-history')

  // A conflict: the record changes elsewhere while the form is open.
  await page.getByRole('link', { name: 'Editar' }).click()
  await formLoaded(page, 'Calle Mayor 1')
  await page.locator('#f-descripcion').fill('Bicicleta de montaña')
  const elsewhere = await api.request('PUT', `/denuncias/${id}`, {
    token: agente.token,
    body: { lugar_hechos: 'Otra' },
  })
  t.equal(elsewhere.status, 200)
  await page.getByRole('button', { name: 'Guardar cambios' }).click()
  await page.getByRole('alert').filter({ hasText: 'Conflicto de versión' }).waitFor()
  await view.shot('conflict')
  await page.getByRole('button', { name: 'Recargar el registro' }).click()
  t.equal(await settled(() => page.locator('#f-lugar_hechos').inputValue(), 'Otra'), 'Otra', 'reloaded')
  await page.locator('#f-descripcion').fill('Bicicleta de montaña')
  // A workflow move as a button, with the form's change.
  await page.getByRole('button', { name: /Pasar a investigacion/ }).click()
  await page.getByRole('heading', { name: `Denuncias ${id}` }).waitFor()
  const moved = (await asAgente(`/denuncias/${id}`)).body.data
  t.match(moved, { estado: 'investigacion', descripcion: 'Bicicleta de montaña', _version: 4 })

  // The token ends (revoked here): the next call goes back to sign-in. The record page's live
  // feed may be that call (its stream closed, a new ticket refused), so the screen is changed by
  // its address rather than by a link that may already be gone.
  const token = (await page.evaluate("sessionStorage.getItem('records.token')")) as string
  t.equal((await api.request('POST', '/auth/logout', { token })).status, 200)
  await page.evaluate("location.hash = '#/m/denuncias'")
  await page.getByRole('heading', { name: 'Iniciar sesión' }).waitFor()
  await page.getByText('Token inválido o expirado: inicie sesión de nuevo.').waitFor()
  t.same(view.problems, [], 'no console error, page error or CSP violation')
})

t.test(
  'an administrador signs in with a second factor, sees every module and deletes a record',
  { skip },
  async (t) => {
    const { api, url } = await consoleService(t)
    const admin = await api.userWithRole('administrador')
    const { codes } = await enrolTotp(api, admin.token, new Date())
    const view = await openConsole(t)
    if (view === undefined) return
    const { page } = view
    await page.goto(url)
    await page.getByRole('heading', { name: 'Iniciar sesión' }).waitFor()
    // The keyboard alone: Tab to each field, Enter to send; the code field takes the focus.
    await page.keyboard.press('Tab')
    await page.keyboard.type(admin.username)
    await page.keyboard.press('Tab')
    await page.keyboard.type(admin.password)
    await page.keyboard.press('Enter')
    await page.getByLabel('Código de segundo factor').waitFor()
    // The field is drawn first; the focus moves to it right after (an effect of the render).
    await page
      .waitForFunction("document.activeElement?.id === 'codigo'", undefined, { timeout: 5000 })
      .catch(() => undefined)
    t.equal(await page.evaluate('document.activeElement.id'), 'codigo', 'the focus is on the code')
    await page.keyboard.type(codes[0] ?? '')
    await view.shot('second-factor')
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: 'Módulos' }).waitFor()
    const token = (await page.evaluate("sessionStorage.getItem('records.token')")) as string
    const modules = (await api.request('GET', '/me/modulos', { token })).body.data.map((m: any) => m.descripcion)
    t.ok(modules.length >= 9, 'every module, usuarios included')
    t.same(await page.locator('ul.modules a').allTextContents(), modules)
    await noProblems(t, view, 'admin-modules')

    // A soft delete, after a confirmation, for a role whose module view lists `eliminar`.
    const denuncias = (await api.request('GET', '/me/modulos', { token })).body.data.find(
      (m: any) => m.nombre === 'denuncias',
    )
    t.ok(denuncias.acciones.includes('eliminar'), 'the API says the administrador may delete')
    const doomed = (await api.create('denuncias', VALID['denuncias']!())) as any
    await page.goto(`${url}#/m/denuncias/${doomed._id}`)
    await page.getByRole('button', { name: 'Eliminar' }).click()
    await page.getByRole('button', { name: 'Cancelar' }).click()
    t.equal((await api.request('GET', `/denuncias/${doomed._id}`, { token })).status, 200, 'cancelled: still there')
    await page.getByRole('button', { name: 'Eliminar' }).click()
    await noProblems(t, view, 'delete-confirm')
    await page.getByRole('button', { name: 'Confirmar la eliminación' }).click()
    await page.waitForURL(/#\/m\/denuncias$/)
    t.equal((await api.request('GET', `/denuncias/${doomed._id}`, { token })).status, 404, 'deleted through the API')
    const left = ids(await api.request('GET', '/denuncias?limit=20', { token }))
    t.same(await settled(() => listedIds(page), left), left, 'back to the list, which no longer holds it')

    await page.getByRole('button', { name: 'Cerrar sesión' }).click()
    await page.getByText('Sesión cerrada.').waitFor()
    t.equal((await api.request('GET', '/me', { token })).status, 401, 'signing out revoked the token')
    t.same(view.problems, [])
  },
)

t.test('an oficial is asked for the motivo personal requires, and the list comes with it', { skip }, async (t) => {
  const { api, url } = await consoleService(t)
  for (let i = 0; i < 2; i += 1) await api.create('personal', VALID['personal']!())
  const oficial = await api.userWithRole('oficial')
  const view = await openConsole(t)
  if (view === undefined) return
  const { page } = view
  await page.goto(`${url}#/m/personal`)
  await signIn(view.page, oficial.username, oficial.password)
  await page.getByRole('dialog', { name: 'Motivo de la consulta' }).waitFor()
  await noProblems(t, view, 'motivo')
  await page.getByLabel('Motivo', { exact: true }).fill('Comprobación de destino')
  await page.getByRole('button', { name: 'Continuar' }).click()
  const expected = ids(
    await api.request('GET', '/personal?limit=20', { token: oficial.token, headers: { 'x-motivo': 'prueba' } }),
  )
  t.same(await settled(() => listedIds(page), expected), expected, 'the list, once the motivo was given')
  const adminToken = await api.adminToken()
  const consulted = await eventually(
    () =>
      api.request('GET', `/auditoria?usuario=${oficial.id}&modulo=personal&accion=consultar`, {
        token: adminToken,
      }),
    (reply) => reply.body.data.entries.some((e: any) => e.motivo === 'Comprobación de destino'),
  )
  t.ok(
    consulted.body.data.entries.some((e: any) => e.motivo === 'Comprobación de destino'),
    'the consultation is logged with the motivo as typed (accents kept)',
  )
  t.same(view.problems, [])
})
