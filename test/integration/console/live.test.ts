// The console's live list (D44, D46): an agente's open list of denuncias follows the live feed
// (GET /eventos with a ticket): a record edited through the API changes in the page without a
// reload, a new one appears, a deleted one goes, and when the token is revoked the list says the
// feed was closed and asks for no more tickets. Skipped loudly outside CI without Chromium.
import t from 'tap'
import { VALID } from '../../helpers/api.js'
import { chromiumSkip } from '../../helpers/chromium.js'
import { buildConsole, consoleService, listedIds, openConsole, settled, signIn } from './support.js'

const skip = chromiumSkip('the console live-list test')
if (skip === false) buildConsole()

t.test('an edit through the API appears in an open list and an open record without reload', { skip }, async (t) => {
  const { api, url } = await consoleService(t)
  const year = new Date().getFullYear()
  const agente = await api.userWithRole('agente', { personal_id: `PER-${year}-00001` })
  const mine = { ...VALID['denuncias']!(), agente_asignado: `PER-${year}-00001` }
  const first = (await api.create('denuncias', { ...mine, lugar_hechos: 'Plaza Mayor' })) as any
  const second = (await api.create('denuncias', mine)) as any
  const view = await openConsole(t)
  if (view === undefined) return
  const { page } = view
  let tickets = 0
  page.on('request', (request) => {
    if (request.url().endsWith('/eventos/ticket')) tickets += 1
  })
  await page.goto(`${url}#/m/denuncias`)
  await signIn(page, agente.username, agente.password)
  await page.getByText('Actualización en directo activa').waitFor()
  const listed = await settled(async () => (await listedIds(page)).sort(), [first._id, second._id].sort())
  t.same(listed, [first._id, second._id].sort(), 'the two denuncias listed')

  // Edited through the API by someone else: the row changes in place.
  const edited = await api.request('PUT', `/denuncias/${first._id}`, {
    token: await api.adminToken(),
    body: { lugar_hechos: 'Calle Nueva 7' },
  })
  t.equal(edited.status, 200)
  const row = page.locator('tbody tr', { has: page.getByRole('link', { name: first._id }) })
  await row.locator('td', { hasText: 'Calle Nueva 7' }).waitFor()
  t.match(await row.getAttribute('class'), /changed/, 'the edited row is marked')
  const shown = await row.locator('td').allTextContents()
  const expected = (await api.request('GET', `/denuncias/${first._id}`, { token: agente.token })).body.data
  t.ok(shown.includes(expected.lugar_hechos), 'the row shows what the API gives the agente')

  // Created: it appears, in the API's order.
  const third = (await api.create('denuncias', mine)) as any
  const order = (await api.request('GET', '/denuncias?limit=20', { token: agente.token })).body.data.records.map(
    (r: any) => r._id,
  )
  t.same(await settled(() => listedIds(page), order), order, 'the new denuncia appears')
  t.ok(order.includes(third._id))
  await page.getByText('3 registros').waitFor()

  // Deleted: it goes.
  const deleted = await api.request('DELETE', `/denuncias/${second._id}`, { token: await api.adminToken() })
  t.equal(deleted.status, 200)
  const left = order.filter((id: string) => id !== second._id)
  t.same(await settled(() => listedIds(page), left), left, 'the deleted denuncia goes')
  t.same(await view.axe(), [], 'no serious or critical accessibility violation')
  t.equal(await page.evaluate("document.querySelectorAll('[style]').length"), 0, 'no style attribute')
  await view.shot('live-list')

  // An open record's page follows it too: edited elsewhere, it reloads and says so.
  await page.getByRole('link', { name: first._id }).click()
  await page.getByText('Actualización en directo activa').waitFor()
  const again = await api.request('PUT', `/denuncias/${first._id}`, {
    token: await api.adminToken(),
    body: { lugar_hechos: 'Avenida del Puerto 3' },
  })
  t.equal(again.status, 200)
  await page.getByText('El registro ha cambiado en otro lugar: se muestra su versión actual.').waitFor()
  const current = (await api.request('GET', `/denuncias/${first._id}`, { token: agente.token })).body.data
  await page.getByText(current.lugar_hechos, { exact: true }).first().waitFor()
  t.equal(current.lugar_hechos, 'Avenida del Puerto 3', 'the record page shows what the API now gives the agente')

  // The token revoked elsewhere: the feed says why it closed, and no reconnect follows.
  const token = (await page.evaluate("sessionStorage.getItem('records.token')")) as string
  t.equal((await api.request('POST', '/auth/logout', { token })).status, 200)
  // A write the feed shows it: the stream checks the token then (else at its heartbeat, 15 s).
  await api.create('denuncias', mine)
  await page.getByText(/Actualización en directo cerrada: /).waitFor()
  await view.shot('live-closed')
  const asked = tickets
  await page.waitForTimeout(3_000)
  t.equal(tickets, asked, 'no new ticket asked after the feed closed')
  t.equal(asked, 2, 'one ticket per screen followed (the list, then the record), none more')
  t.same(view.problems, [], 'no console error, page error or CSP violation')
})
