// The console's evidence files on a record's page (D43, D44, D46): an agente uploads a PNG to a
// denuncia it handles (name and SHA-256 sent with it), the record lists it, and a download with a
// motivo gives back the same bytes and leaves a `fichero_descarga` custody entry with that motivo.
// Skipped loudly outside CI without Chromium.
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import t, { type Test } from 'tap'
import { VALID } from '../../helpers/api.js'
import { chromiumSkip } from '../../helpers/chromium.js'
import { eventually } from '../protection/support.js'
import { buildConsole, consoleService, openConsole, signIn } from './support.js'

const skip = chromiumSkip('the console evidence test')
if (skip === false) buildConsole()

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
)

t.test(
  'an agente uploads an evidence file downloads it with a motivo, and reads its chain of custody',
  { skip },
  async (t: Test) => {
    const { api, url } = await consoleService(t)
    const year = new Date().getFullYear()
    const agente = await api.userWithRole('agente', { personal_id: `PER-${year}-00001` })
    const record = (await api.create('denuncias', {
      ...VALID['denuncias']!(),
      agente_asignado: `PER-${year}-00001`,
    })) as any
    const view = await openConsole(t)
    if (view === undefined) return
    const { page } = view
    await page.goto(`${url}#/m/denuncias/${record._id}`)
    await signIn(page, agente.username, agente.password)
    await page.getByRole('heading', { name: 'Ficheros de prueba' }).waitFor()
    await page
      .getByLabel('Nuevo fichero para Pruebas')
      .setInputFiles({ name: 'foto.png', mimeType: 'image/png', buffer: PNG })
    await page.getByRole('button', { name: 'Subir' }).click()
    await page.getByText('Fichero subido: foto.png').waitFor()
    await page.getByRole('button', { name: 'Descargar foto.png' }).waitFor()
    const stored = (await api.request('GET', `/denuncias/${record._id}`, { token: agente.token })).body.data
    t.match(stored.pruebas, [{ n: 1, name: 'foto.png', sha256: createHash('sha256').update(PNG).digest('hex') }])
    t.same(await view.axe(), [], 'no serious or critical accessibility violation')
    t.equal(await page.evaluate("document.querySelectorAll('[style]').length"), 0, 'no style attribute')
    await view.shot('evidence')

    await page.getByLabel('Motivo de la descarga o de la subida').fill('Remisión al juzgado')
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Descargar foto.png' }).click(),
    ])
    t.equal(download.suggestedFilename(), 'foto.png')
    t.same(readFileSync((await download.path()) ?? ''), PNG, 'the same bytes back')
    const admin = await api.adminToken()
    const custody = await eventually(
      () => api.request('GET', `/auditoria?accion=fichero_descarga&registro=${record._id}`, { token: admin }),
      (reply) => reply.body.data.total > 0,
    )
    t.match(custody.body.data.entries, [{ user_id: agente.id, motivo: 'Remisión al juzgado' }], 'custody: who and why')

    // The file's chain of custody, as the API gives it to the agente: ingest, then the download.
    const trail = await api.request('GET', `/denuncias/${record._id}/ficheros/pruebas/1/custodia`, {
      token: agente.token,
      headers: { 'x-motivo': 'prueba' },
    })
    t.equal(trail.status, 200)
    await page.getByRole('button', { name: 'Cadena de custodia de foto.png' }).click()
    const table = page.getByRole('table', { name: 'Cadena de custodia de foto.png' })
    await table.waitFor()
    t.same(
      await table.locator('tbody th').allTextContents(),
      trail.body.data.entries.map((e: any) => String(e.seq)),
      'D43: the trail shows the entries the API gives',
    )
    t.same(
      await table.locator('tbody td:nth-child(3)').allTextContents(),
      ['ingreso', 'descarga'],
      'the ingest and the download, in order',
    )
    t.equal(await table.getByText('no coincide').count(), 0, 'every digest is the file’s own')
    t.same(await view.axe(), [], 'the custody trail: no serious or critical accessibility violation')
    t.same(view.problems, [], 'no console error, page error or CSP violation')
  },
)
