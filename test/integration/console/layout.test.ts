// D44: readable on a laptop and a tablet. An administrador's main screens at a laptop's size and
// at a tablet's, upright and on its side: the page never scrolls sideways (a wide table scrolls
// inside its own frame), every screen's heading and first control are in view, and axe-core finds
// nothing serious at the tablet's size. Screenshots at the tablet's size are kept for review.
// Skipped loudly outside CI without Chromium.
import t from 'tap'
import { VALID } from '../../helpers/api.js'
import { chromiumSkip } from '../../helpers/chromium.js'
import { buildConsole, consoleService, openConsole, signIn } from './support.js'

const skip = chromiumSkip('the console layout test')
if (skip === false) buildConsole()

const SIZES = [
  { name: 'portatil', width: 1280, height: 800 },
  { name: 'tableta', width: 768, height: 1024 },
  { name: 'tableta-horizontal', width: 1024, height: 768 },
] as const

t.test('D44: the main screens fit a laptop and a tablet', { skip }, async (t) => {
  const { api, url } = await consoleService(t)
  const admin = await api.userWithRole('administrador')
  const record = (await api.create('denuncias', VALID['denuncias']!())) as any
  for (let i = 0; i < 3; i += 1) await api.create('denuncias', VALID['denuncias']!())
  const view = await openConsole(t)
  if (view === undefined) return
  const { page } = view
  await page.goto(url)
  await signIn(page, admin.username, admin.password)
  await page.getByRole('heading', { name: 'Módulos' }).waitFor()

  const screens = [
    { hash: '#/', name: 'modulos', heading: 'Módulos' },
    { hash: '#/m/denuncias', name: 'lista', heading: 'Denuncias' },
    { hash: `#/m/denuncias/${record._id}`, name: 'registro', heading: `Denuncias ${record._id}` },
    { hash: '#/m/denuncias/nuevo', name: 'formulario', heading: 'Nuevo registro · Denuncias' },
    { hash: '#/auditoria', name: 'auditoria', heading: 'Auditoría y consultas' },
  ]
  for (const size of SIZES) {
    await page.setViewportSize({ width: size.width, height: size.height })
    for (const screen of screens) {
      await page.evaluate(`location.hash = ${JSON.stringify(screen.hash)}`)
      const heading = page.getByRole('heading', { level: 1, name: screen.heading, exact: true })
      await heading.waitFor()
      // The screen's data in place (a list's rows, a record's fields) before measuring.
      await page.waitForLoadState('networkidle')
      const overflow = (await page.evaluate(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      )) as number
      t.equal(overflow, 0, `${size.name} ${screen.name}: no sideways scroll of the page`)
      const box = await heading.boundingBox()
      t.ok(
        box !== null && box.x >= 0 && box.x + box.width <= size.width,
        `${size.name} ${screen.name}: heading in view`,
      )
      if (size.name === 'tableta') {
        t.same(await view.axe(), [], `${size.name} ${screen.name}: no serious or critical accessibility violation`)
        await view.shot(`tableta-${screen.name}`)
      }
    }
  }
  t.same(view.problems, [], 'no console error, page error or CSP violation')
})
