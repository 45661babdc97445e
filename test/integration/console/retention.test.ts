// The console's retention queue and legal holds (D41, D44, D46) as a dpd: sanciones whose
// infraction is years old are due now (review every year, kept at most five), the queue lists
// what GET /retencion gives the dpd, a review (conservar) with its motivo, a hold that stops an
// erasure, its release, and an erasure confirmed first that leaves the tombstone.
// Skipped loudly outside CI without Chromium.
import t, { type Test } from 'tap'
import { VALID } from '../../helpers/api.js'
import { chromiumSkip } from '../../helpers/chromium.js'
import { buildConsole, consoleService, openConsole, settled, signIn } from './support.js'

const skip = chromiumSkip('the console retention test')
if (skip === false) buildConsole()

t.test('a dpd reviews, holds, releases and erases an old sanción', { skip }, async (t: Test) => {
  const { api, url } = await consoleService(t)
  const old = { ...VALID['sanciones']!(), fecha_infraccion: '2019-01-01 00:00:00' }
  const first = (await api.create('sanciones', old)) as any
  const second = (await api.create('sanciones', { ...old, fecha_infraccion: '2020-06-01 00:00:00' })) as any
  await api.create('sanciones', VALID['sanciones']!())
  const dpd = await api.userWithRole('dpd')
  const queue = (await api.request('GET', '/retencion?limit=50&module=sanciones', { token: dpd.token })).body.data
  t.same(
    queue.entries.map((e: any) => e.id),
    [first._id, second._id],
    'the API: the two old sanciones are due, the recent one is not',
  )

  const view = await openConsole(t)
  if (view === undefined) return
  const { page } = view
  await page.goto(url)
  await signIn(page, dpd.username, dpd.password)
  await page.getByRole('link', { name: 'Conservación y retenciones' }).click()
  await page.getByRole('heading', { name: 'Conservación y retenciones' }).waitFor()
  await page.getByLabel('Módulo').fill('sanciones')
  await page.getByRole('button', { name: 'Filtrar' }).click()
  const want = queue.entries.map((e: any) => e.id)
  t.same(await settled(() => page.locator('tbody th a').allTextContents(), want), want, 'the queue the API gives')
  await page.getByText('2 registros pendientes de decisión').waitFor()
  t.same(await view.axe(), [], 'queue: no serious or critical accessibility violation')
  t.equal(await page.evaluate("document.querySelectorAll('[style]').length"), 0, 'queue: no style attribute')
  await view.shot('retention-queue')

  // Review: conservar, with its motivo.
  await page.getByRole('link', { name: first._id }).click()
  await page.getByRole('heading', { name: `Conservación de sanciones ${first._id}` }).waitFor()
  await page.getByLabel('Motivo de la decisión').fill('Expediente de cobro abierto')
  await page.getByRole('button', { name: 'Aplicar decisión' }).click()
  await page.getByText('Decisión aplicada: conservar').waitFor()
  const reviewed = (await api.request('GET', `/retencion/sanciones/${first._id}`, { token: dpd.token })).body.data
  t.equal(reviewed.reviewed_by, dpd.id, 'the review reached the API, by the dpd')

  // A hold: an erasure is then refused, as the API words it.
  await page.getByLabel('Referencia (p. ej. número de diligencias)').fill('DP 123/2026')
  await page.getByLabel('Motivo de la retención o de su levantamiento').fill('Requerimiento judicial')
  await page.getByRole('button', { name: 'Retener' }).click()
  await page.getByText('Retención legal puesta').waitFor()
  await page.locator('dl.fields dd', { hasText: 'DP 123/2026' }).waitFor()
  await page.getByLabel('Decisión', { exact: true }).selectOption('suprimir')
  await page.getByLabel('Motivo de la decisión').fill('Plazo máximo cumplido')
  await page.getByRole('button', { name: 'Aplicar decisión' }).click()
  await page.getByRole('button', { name: 'Confirmar la supresión' }).waitFor()
  t.equal(
    (await api.request('GET', `/retencion/sanciones/${first._id}`, { token: dpd.token })).status,
    200,
    'nothing is sent before the confirmation',
  )
  await view.shot('retention-confirm')
  await page.getByRole('button', { name: 'Confirmar la supresión' }).click()
  await page.getByRole('alert').filter({ hasText: 'Registro retenido' }).waitFor()
  t.same(view.problems, [], 'a refusal is no console problem')

  // Release, then erase: the tombstone.
  await page.getByLabel('Motivo de la retención o de su levantamiento').fill('Archivo de las diligencias')
  await page.getByRole('button', { name: 'Levantar la retención' }).click()
  await page.getByText('Retención legal levantada').waitFor()
  await page.getByLabel('Decisión', { exact: true }).selectOption('suprimir')
  await page.getByLabel('Motivo de la decisión').fill('Plazo máximo cumplido')
  await page.getByRole('button', { name: 'Aplicar decisión' }).click()
  await page.getByRole('button', { name: 'Confirmar la supresión' }).click()
  await page.getByText('Registro suprimido.').waitFor()
  const tombstone = (await api.request('GET', `/retencion/sanciones/${first._id}`, { token: dpd.token })).body.data
  t.match(tombstone, { module: 'sanciones', id: first._id, erased_by: dpd.id, motivo: 'Plazo máximo cumplido' })
  t.equal((await api.request('GET', `/sanciones/${first._id}`, { token: await api.adminToken() })).status, 404)
  t.same(await view.axe(), [], 'tombstone: no serious or critical accessibility violation')
  await view.shot('retention-tombstone')
  await page.getByRole('link', { name: 'Volver a la cola' }).click()
  t.same(
    await settled(() => page.locator('tbody th a').allTextContents(), [second._id]),
    [second._id],
    'gone from the queue',
  )
  t.same(view.problems, [], 'no console error, page error or CSP violation')
})
