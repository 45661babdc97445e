// D44: as each shipped role, the console shows exactly what the API allows that role. For a user of
// every role of modules.yaml, signed in through the console in its own tab of one browser: the
// menu holds the modules and administration screens whose API the role may call (asked of the
// API, not listed here), the modules are those of GET /me/modulos, and one module's list shows
// the rows and the fields GET /{module} returns to that user, values as it returns them, no
// hidden or masked field. Skipped loudly outside CI without Chromium.
import t from 'tap'
import { MASK } from '../../../src/compile/metadata.js'
import { VALID } from '../../helpers/api.js'
import { chromiumSkip } from '../../helpers/chromium.js'
import { enrolTotp } from '../auth/totp-support.js'
import { buildConsole, consoleService, listedIds, openConsole, settled, type ConsolePage, signIn } from './support.js'

const skip = chromiumSkip('the console test per role')
if (skip === false) buildConsole()

/** The console's labels of its administration screens, by the API path each one reads. */
const SCREENS = {
  audit: 'Auditoría y consultas',
  retention: 'Conservación y retenciones',
  accounts: 'Gestión de cuentas',
  definitions: 'Definiciones',
}
/** A field's name as the console labels it (`fecha_hechos` as `Fecha hechos`). */
const label = (name: string) => `${name.charAt(0).toUpperCase()}${name.slice(1).replaceAll('_', ' ')}`
/** A value as the console's table cell writes it. */
const cell = (value: unknown): string =>
  value === null || value === undefined
    ? '—'
    : typeof value === 'object'
      ? JSON.stringify(value)
      : typeof value === 'boolean'
        ? value
          ? 'sí'
          : 'no'
        : String(value)

t.test('D44: each shipped role sees in the console exactly what the API allows it', { skip }, async (t) => {
  const { api, url } = await consoleService(t)
  const { spec } = api.service
  const person = (await api.create('personal', VALID['personal']!()))._id as string
  // Records in and out of the scoped roles' reach, with encrypted and cannot_read values.
  for (const [module, body] of Object.entries(VALID))
    for (const mine of [true, false])
      await api.create(module, {
        ...body(),
        ...(module === 'denuncias'
          ? {
              denunciante_dni: '12345678Z',
              observaciones: 'Nota interna',
              ...(mine ? { agente_asignado: person } : {}),
            }
          : {}),
        ...(module === 'turnos' && mine ? { agente_id: person } : {}),
      })
  const headers = { 'x-motivo': 'Prueba de la consola por rol' }
  const first = await openConsole(t)
  if (first === undefined) return
  let view: ConsolePage | undefined

  for (const [role, roleSpec] of spec.roles) {
    const user = await api.userWithRole(role, { personal_id: person })
    const codes = roleSpec.secondFactorRequired ? (await enrolTotp(api, user.token, new Date())).codes : []
    const asUser = (path: string) => api.request('GET', path, { token: user.token, headers })
    const allowed = async (path: string) => (await asUser(path)).status === 200
    // A tab per role, one browser: each tab has its own session.
    const previous = view
    view = previous === undefined ? first : await previous.another()
    if (previous !== undefined) await previous.page.close()
    const { page } = view

    await page.goto(url)
    await signIn(page, user.username, user.password)
    if (codes.length > 0) {
      await page.getByLabel('Código de segundo factor').fill(codes[0]!)
      await page.keyboard.press('Enter')
    }
    await page.getByRole('heading', { name: 'Módulos' }).waitFor()

    // The menu: the modules whose list the API answers, as GET /me/modulos names them.
    const views = (await asUser('/me/modulos')).body.data as any[]
    const listable: string[] = []
    for (const module of spec.modules) if (await allowed(`/${module.name}?limit=1`)) listable.push(module.name)
    t.same(
      views.map((m) => m.nombre),
      listable,
      `${role}: GET /me/modulos names the modules it may list`,
    )
    t.same(
      await page.locator('ul.modules a').allTextContents(),
      views.map((m) => m.descripcion),
      `${role}: the console shows the modules of GET /me/modulos`,
    )
    const screens = [
      (await allowed(`/${spec.audit.path}?limit=1`)) && SCREENS.audit,
      (await allowed(`/${spec.retention.path}?limit=1`)) && SCREENS.retention,
      (await allowed(`/${spec.accounts.spec.name}?limit=1`)) && SCREENS.accounts,
      (await allowed(`/me/modulos/${spec.modules[0]!.name}/explicacion`)) && SCREENS.definitions,
    ].filter((s) => s !== false)
    t.same(await page.locator('ul.admin a').allTextContents(), screens, `${role}: the screens whose API it may call`)

    // One module's list (one the role lists without a motivo): its rows and fields as the API's.
    const module = views.find((m) => !m.motivo.includes('consultar'))
    if (module === undefined) {
      await page.getByText('Su rol no puede ver ningún módulo.').waitFor()
      t.same(views, [], `${role}: no module to list`)
    } else {
      await page.getByRole('link', { name: module.descripcion, exact: true }).click()
      await page.getByRole('heading', { name: module.descripcion }).waitFor()
      const records = (await asUser(`/${module.nombre}?limit=20`)).body.data.records as Record<string, unknown>[]
      const expected = records.map((r) => String(r['_id']))
      t.ok(expected.length > 0, `${role}: lists some ${module.nombre}`)
      t.same(await settled(() => listedIds(page), expected), expected, `${role}: the rows of GET /${module.nombre}`)
      const byLabel = new Map<string, string>(module.campos.map((c: any) => [label(c.nombre), c.nombre]))
      const headings = (await page.locator('thead th').allTextContents()).map((h) => h.replace('(ordenar)', '').trim())
      t.equal(headings[0], 'Id')
      const columns = headings.slice(1).map((h) => byLabel.get(h) ?? `? ${h}`)
      t.ok(columns.length > 0, `${role}: some fields shown`)
      for (const column of columns)
        t.ok(
          records.every((r) => column in r && r[column] !== MASK),
          `${role}: ${column} is in the API's answer, unmasked`,
        )
      const shown = await page
        .locator('tbody tr')
        .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((td) => td.textContent)))
      t.notOk((await page.locator('tbody').textContent())?.includes(MASK), `${role}: no masked value in the list`)
      t.same(
        shown,
        records.map((r) => columns.map((c) => cell(r[c]))),
        `${role}: the values GET /${module.nombre} returns`,
      )
    }
    t.same(await view.axe(), [], `${role}: no serious or critical accessibility violation`)
    await view.shot(`role-${role}`)
    t.same(view.problems, [], `${role}: no console error, page error or CSP violation`)
  }
})
