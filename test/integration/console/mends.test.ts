// The console's mends (D44, D46) in Chromium: a motivo is asked per action (the one given to
// read a record is not sent to edit it, and the prompt says which action it is for); a
// malformed location hash goes to the module list; a 403 on /me/modulos shows the API's message.
// Skipped loudly outside CI without Chromium.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { REPO_MODULES, VALID } from '../../helpers/api.js'
import { chromiumSkip } from '../../helpers/chromium.js'
import { buildConsole, consoleService, openConsole, settled, signIn } from './support.js'

const skip = chromiumSkip('the console test')
if (skip === false) buildConsole()

/** modules.yaml where a jefe justifies both reading and editing personal. */
function motivoToEdit(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'records-console-mends-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'modules.yaml')
  const shipped = readFileSync(REPO_MODULES, 'utf8')
  const rule = '    motivo_requerido:\n      consultar: [oficial, agente, consulta]\n'
  t.ok(shipped.includes(rule), 'the shipped personal rule, as this test changes it')
  writeFileSync(
    file,
    shipped.replace(
      rule,
      '    motivo_requerido:\n      consultar: [oficial, agente, consulta, jefe]\n      editar: [jefe]\n',
    ),
  )
  return file
}

t.test('a jefe gives one motivo to read a record and another to edit it', { skip }, async (t) => {
  const { api, url } = await consoleService(t, { env: { MODULES_FILE: motivoToEdit(t) } })
  const created = await api.create('personal', VALID['personal']!())
  const id = created._id as string
  const jefe = await api.userWithRole('jefe')
  const view = await openConsole(t)
  if (view === undefined) return
  const { page } = view
  const sent: { method: string; motivo: string | undefined }[] = []
  page.on('request', (request) => {
    if (request.url().includes(`/personal/${id}`))
      sent.push({ method: request.method(), motivo: request.headers()['x-motivo'] })
  })
  await page.goto(`${url}#/m/personal/${id}/editar`)
  await signIn(view.page, jefe.username, jefe.password)
  const reading = page.getByRole('dialog', { name: 'Motivo de la consulta' })
  await reading.waitFor()
  t.match(await reading.textContent(), /motivo para consultar registros de personal/)
  await page.getByLabel('Motivo', { exact: true }).fill('Revisión del expediente')
  await page.getByRole('button', { name: 'Continuar' }).click()
  await settled(() => page.locator('#f-destino').isVisible(), true)
  await page.locator('#f-destino').fill('Comisaría Norte')
  await page.getByRole('button', { name: 'Guardar cambios' }).click()
  const editing = page.getByRole('dialog', { name: 'Motivo de la modificación' })
  await editing.waitFor({ timeout: 5000 })
  t.match(await editing.textContent(), /motivo para modificar registros de personal/, 'worded by the action')
  await page.getByLabel('Motivo', { exact: true }).fill('Cambio de destino')
  await page.getByRole('button', { name: 'Continuar' }).click()
  const headers = { 'x-motivo': 'prueba' }
  const stored = await settled(
    async () => (await api.request('GET', `/personal/${id}`, { token: jefe.token, headers })).body.data.destino,
    'Comisaría Norte',
  )
  t.equal(stored, 'Comisaría Norte', 'the edit reached the API')
  const puts = sent.filter((s) => s.method === 'PUT').map((s) => s.motivo)
  t.same(puts, [undefined, encodeURIComponent('Cambio de destino')], "the read's motivo never went with the PUT")
  t.same(view.problems, [])
})

t.test('a malformed location hash goes to the module list', { skip }, async (t) => {
  const { api, url } = await consoleService(t)
  const agente = await api.userWithRole('agente')
  const view = await openConsole(t)
  if (view === undefined) return
  const { page } = view
  await page.goto(`${url}#/m/denuncias/%E0%A4%A`)
  await signIn(view.page, agente.username, agente.password)
  await page.locator('ul.modules a').first().waitFor({ timeout: 5000 })
  t.ok((await page.locator('ul.modules a').count()) > 0, 'the module list, not a blank page')
  t.same(view.problems, [])
})

t.test(
  'a role whose second factor is not enrolled is told so, offered the enrolment, and may sign out',
  { skip },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'records-console-mends-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    const file = join(dir, 'modules.yaml')
    const shipped = readFileSync(REPO_MODULES, 'utf8')
    const role = '  consulta:\n'
    t.ok(shipped.includes(role), 'the shipped consulta role, as this test changes it')
    writeFileSync(file, shipped.replace(role, `${role}    segundo_factor: obligatorio\n`))
    const { api, url } = await consoleService(t, { env: { MODULES_FILE: file } })
    const consulta = await api.userWithRole('consulta')
    t.equal((await api.request('GET', '/me/modulos', { token: consulta.token })).status, 403, 'the API refuses')
    const view = await openConsole(t)
    if (view === undefined) return
    const { page } = view
    await page.goto(url)
    await signIn(view.page, consulta.username, consulta.password)
    await page
      .getByRole('alert')
      .filter({ hasText: /requiere segundo factor/ })
      .waitFor({ timeout: 5000 })
    await page.getByRole('heading', { name: 'Segundo factor' }).waitFor()
    // The heading comes first; the enrolment once the account's factors have loaded.
    const enrol = page.getByRole('button', { name: 'Añadir aplicación de autenticación' })
    await enrol.waitFor({ timeout: 5000 }).catch(() => undefined)
    t.equal(await enrol.count(), 1, 'D42: the enrolment is offered in place')
    t.equal(await page.getByText('Cargando…').count(), 0, 'no longer loading')
    await page.locator('main').getByRole('button', { name: 'Cerrar sesión' }).click()
    await page.getByText('Sesión cerrada.').waitFor()
    t.same(view.problems, [])
  },
)
