// The live feed in a real headless Chromium: a page on the API's origin opens
// an EventSource with a ticket, another client creates a sala092 record and the page shows it;
// then the page drops the stream, records are created meanwhile, and it resumes (a new ticket
// and the last event id) without losing one. Same Chromium and flags as the docs page test.
import t from 'tap'
import { startTestApi, VALID } from '../../helpers/api.js'
import { chromiumSkip, launchChromium } from '../../helpers/chromium.js'

const skip = chromiumSkip('the browser test')

/**
 * The page's script, as a board would have it (run in the page: the test's TypeScript has no DOM
 * types): `connect(bearer, desde)` asks for a ticket, opens an EventSource and lists each event.
 */
const PAGE_SCRIPT = `
  window.shown = []
  window.connect = async (bearer, desde) => {
    const r = await fetch('/api/eventos/ticket', { method: 'POST', headers: { authorization: 'Bearer ' + bearer } })
    const { ticket } = (await r.json()).data
    const resume = desde === undefined ? '' : '&desde=' + desde
    const feed = new EventSource('/api/eventos?modulos=sala092&ticket=' + ticket + resume)
    window.feed = feed
    const show = (e) => {
      const data = JSON.parse(e.data)
      window.shown.push({ id: data.id, event: e.type, seq: e.lastEventId })
      const item = document.createElement('li')
      item.id = data.id
      item.textContent = e.data
      document.body.append(item)
    }
    for (const kind of ['crear', 'editar', 'mover', 'eliminar', 'fuera']) feed.addEventListener(kind, show)
    await new Promise((resolve) => feed.addEventListener('open', resolve, { once: true }))
  }
`

t.test('an EventSource with a ticket shows a new sala092 record, and resumes without loss', { skip }, async (t) => {
  const api = await startTestApi(t)
  const address = await api.service.app.listen({ port: 0, host: '127.0.0.1' })
  const token = await api.login()
  const browser = await launchChromium(t)
  if (browser === undefined) return
  const { page } = browser
  // A page of the API's own origin, as a board served behind the same proxy would be.
  await page.goto(`${address}/api/health`)
  await page.evaluate(PAGE_SCRIPT)
  await page.evaluate(`window.connect(${JSON.stringify(token)}, undefined)`)

  const first = await api.create('sala092', { ...VALID['sala092']!(), descripcion: 'Primera llamada' })
  await page.waitForSelector(`li[id="${first._id}"]`)
  t.match(await page.textContent(`li[id="${first._id}"]`), /Primera llamada/, 'the page shows the new record')

  // Drop the stream; two records are created while the page is away.
  const last = (await page.evaluate('window.feed.close(), window.shown.at(-1).seq')) as string
  const second = await api.create('sala092', VALID['sala092']!())
  const third = await api.create('sala092', VALID['sala092']!())
  await page.evaluate(`window.connect(${JSON.stringify(token)}, ${JSON.stringify(last)})`)
  await page.waitForSelector(`li[id="${third._id}"]`)
  const fourth = await api.create('sala092', VALID['sala092']!())
  await page.waitForSelector(`li[id="${fourth._id}"]`)
  const ids = (await page.evaluate('window.shown.map((s) => s.id)')) as string[]
  t.same(ids, [first._id, second._id, third._id, fourth._id], 'every record once, in order: nothing lost on the resume')
  const seqs = (await page.evaluate('window.shown.map((s) => Number(s.seq))')) as number[]
  t.same(
    [...seqs].sort((a, b) => a - b),
    seqs,
    'event ids grow',
  )
})
