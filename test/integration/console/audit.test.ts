// The console's audit and consultation log (D44, D46, GET /auditoria): a dpd finds who consulted a
// person between two dates by the person's DNI, and the page lists exactly the entries the API
// gives the dpd for the same filters; an agente, whom the API refuses, is not offered the screen.
// Skipped loudly outside CI without Chromium.
import type { Page } from 'playwright-core'
import t, { type Test } from 'tap'
import { VALID } from '../../helpers/api.js'
import { chromiumSkip } from '../../helpers/chromium.js'
import { eventually } from '../protection/support.js'
import { buildConsole, consoleService, openConsole, settled, signIn } from './support.js'

const skip = chromiumSkip('the console audit test')
if (skip === false) buildConsole()

const seqs = (page: Page) => page.locator('tbody th').allTextContents()

t.test('a dpd: who consulted a person between two dates', { skip }, async (t: Test) => {
  const { api, url } = await consoleService(t)
  const year = new Date().getFullYear()
  const agente = await api.userWithRole('agente', { personal_id: `PER-${year}-00001` })
  const record = (await api.create('denuncias', {
    ...VALID['denuncias']!(),
    denunciante_dni: '12345678Z',
    agente_asignado: `PER-${year}-00001`,
  })) as any
  await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: '87654321X' })
  t.equal((await api.request('GET', `/denuncias/${record._id}`, { token: agente.token })).status, 200)
  const dpd = await api.userWithRole('dpd')
  // The service's time zone (Europe/Madrid) day, as `desde`/`hasta` read a bare date.
  const today = new Date().toLocaleDateString('sv-SE', { timeZone: 'Europe/Madrid' })
  const consulted = (reply: any) =>
    reply.body.data.entries.some((e: any) => e.user_id === agente.id && e.action === 'consultar')
  const expected = (
    await eventually(
      () => api.request('GET', `/auditoria?limit=50&dni=12345678Z&desde=${today}&hasta=${today}`, { token: dpd.token }),
      consulted,
    )
  ).body.data
  t.ok(
    expected.entries.some((e: any) => e.user_id === agente.id && e.action === 'consultar'),
    "the agente's consultation is in the API's answer",
  )

  const view = await openConsole(t)
  if (view === undefined) return
  const { page } = view
  await page.goto(url)
  await signIn(view.page, dpd.username, dpd.password)
  await page.getByRole('heading', { name: 'Módulos' }).waitFor()
  t.equal(await page.getByRole('link', { name: 'Gestión de cuentas' }).count(), 0, 'no accounts screen for the dpd')
  await page.getByRole('link', { name: 'Auditoría y consultas' }).click()
  await page.getByRole('heading', { name: 'Auditoría y consultas' }).waitFor()
  await page.getByLabel('DNI o NIF de la persona').fill('12345678Z')
  await page.getByLabel('Desde (AAAA-MM-DD)').fill(today)
  await page.getByLabel('Hasta (AAAA-MM-DD)').fill(today)
  await page.getByRole('button', { name: 'Buscar' }).click()
  const want = expected.entries.map((e: any) => String(e.seq))
  t.same(await settled(() => seqs(page), want), want, 'the page lists what the API gives the dpd')
  await page.getByText(`${expected.total} entradas`).waitFor()
  await page.getByRole('row', { name: new RegExp(`${agente.id} consultar denuncias ${record._id}`) }).waitFor()
  t.same(await view.axe(), [], 'no serious or critical accessibility violation')
  t.equal(await page.evaluate("document.querySelectorAll('[style]').length"), 0, 'no style attribute')
  await view.shot('audit-log')

  // A bad filter: the API's refusal, as worded.
  await page.getByLabel('Hasta (AAAA-MM-DD)').fill('ayer')
  await page.getByRole('button', { name: 'Buscar' }).click()
  await page.getByRole('alert').filter({ hasText: 'Datos inválidos' }).waitFor()

  // Paging: by user, more than 50 entries.
  const all = (await api.request('GET', '/auditoria?limit=50&offset=50', { token: dpd.token })).body.data
  await page.getByLabel('Hasta (AAAA-MM-DD)').fill('')
  await page.getByLabel('DNI o NIF de la persona').fill('')
  await page.getByLabel('Desde (AAAA-MM-DD)').fill('')
  await page.getByRole('button', { name: 'Buscar' }).click()
  await page.getByText(/entradas · página 1 de/).waitFor()
  if (all.total > 50) {
    await page.getByRole('button', { name: 'Siguiente' }).click()
    const second = all.entries.map((e: any) => String(e.seq))
    t.same(await settled(() => seqs(page), second), second, 'the second page as the API pages')
  }
  t.same(view.problems, [], 'no console error, page error or CSP violation')
})

t.test('an agente is not offered the audit log', { skip }, async (t: Test) => {
  const { api, url } = await consoleService(t)
  const agente = await api.userWithRole('agente')
  t.equal((await api.request('GET', '/auditoria?limit=1', { token: agente.token })).status, 403)
  const view = await openConsole(t)
  if (view === undefined) return
  await view.page.goto(`${url}#/auditoria`)
  await signIn(view.page, agente.username, agente.password)
  await view.page.getByRole('heading', { name: 'Módulos' }).waitFor()
  t.equal(await view.page.getByRole('link', { name: 'Auditoría y consultas' }).count(), 0, 'no link')
  t.same(view.problems, [])
})
