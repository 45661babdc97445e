// D47: the console's "Definiciones" screen shows, read-only, what GET
// /me/modulos/{modulo}/explicacion answers: the explain lines for the user asked about and the
// module's fields as the API shows them to the signed-in role. Skipped loudly outside CI without Chromium.
import t from 'tap'
import { chromiumSkip } from '../../helpers/chromium.js'
import { buildConsole, consoleService, openConsole, settled, signIn } from './support.js'

const skip = chromiumSkip('the console definitions test')
if (skip === false) buildConsole()

t.test('D47: an administrador reads what an agente may do in a module, as the API explains it', { skip }, async (t) => {
  const { api, url } = await consoleService(t)
  const person = (await api.create('personal', { tip: 'TIP-D47', nombre: 'Eva', apellidos: 'Gil', escala: 'oficial' }))
    ._id as string
  const agente = await api.userWithRole('agente', { personal_id: person })
  const admin = await api.userWithRole('administrador')
  const view = await openConsole(t)
  if (view === undefined) return
  const { page } = view
  await page.goto(url)
  await signIn(page, admin.username, admin.password)
  await page.getByRole('link', { name: 'Definiciones' }).click()
  await page.getByRole('heading', { name: 'Definiciones' }).waitFor()
  const ownLines = (await api.request('GET', `/me/modulos/denuncias/explicacion`, { token: admin.token })).body.data
    .explicacion as string[]
  t.equal(
    await settled(() => page.locator('pre.explain').textContent(), ownLines.join('\n')),
    ownLines.join('\n'),
    'at first: the signed-in user in the first module',
  )

  await page.getByLabel('Módulo', { exact: true }).selectOption('sanciones')
  await page.getByLabel(/^Usuario \(id/).fill(agente.id)
  await page.getByRole('button', { name: 'Explicar' }).click()
  const answer = (
    await api.request('GET', `/me/modulos/sanciones/explicacion?usuario=${agente.id}`, { token: admin.token })
  ).body.data
  const text = answer.explicacion.join('\n')
  t.equal(await settled(() => page.locator('pre.explain').textContent(), text), text, "the agente's lines")
  t.match(text, /cannot_write\): agente_denunciante/, 'the rule that decides it')
  await page.getByRole('heading', { name: `Qué puede hacer ${agente.id}` }).waitFor()
  t.equal(await page.locator('tbody tr').count(), answer.definicion.campos.length, 'a row per field of the definition')
  await page.getByText('borrador → notificada, anulada').waitFor()

  await page.getByLabel(/^Usuario \(id/).fill('USR-2026-99999')
  await page.getByRole('button', { name: 'Explicar' }).click()
  await page.getByRole('alert').filter({ hasText: 'Registro no encontrado' }).waitFor()
  await page.getByLabel(/^Usuario \(id/).fill(agente.id)
  await page.getByRole('button', { name: 'Explicar' }).click()
  await settled(() => page.locator('pre.explain').textContent(), text)
  t.same(await view.axe(), [], 'no serious or critical accessibility violation')
  await view.shot('definitions')
  t.same(view.problems, [], 'no console error, page error or CSP violation')
})
