// Reading the docs page does not spend the API's per-address budget (D24):
// the page, its assets and /openapi.json have their own, looser limit per address.
import t from 'tap'
import { startTestApi, type TestApi } from '../../helpers/api.js'
import { assertError } from '../auth/envelope.js'

/** A clock that stands still: every request falls in one rate-limit window. */
const clock = () => new Date('2026-11-23T10:00:30.000Z')

/** What a browser fetches for one load of the docs page: the page, every asset it links, the document. */
async function loadDocsPage(api: TestApi): Promise<number[]> {
  const page = await api.request('GET', '/docs')
  const assets = [...String(page.body).matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => m[1] as string)
  const statuses = [page.status]
  for (const url of [...assets, `${api.base}/docs/json`, `${api.base}/openapi.json`])
    statuses.push((await api.service.app.inject({ method: 'GET', url })).statusCode)
  return statuses
}

t.test('20 docs page loads in a minute, then an API request still succeeds', async (t) => {
  const api = await startTestApi(t, { clock, env: { RATE_LIMIT_IP_PER_MINUTE: '50' } })
  const token = await api.adminToken()
  const loads: number[][] = []
  for (let i = 0; i < 20; i++) loads.push(await loadDocsPage(api))
  t.ok(loads[0]!.length >= 6, `one load is ${loads[0]!.length} requests`)
  t.same(
    loads.flat().filter((s) => s !== 200),
    [],
    `${loads.flat().length} docs requests, all served`,
  )
  const reply = await api.request('GET', '/denuncias', { token })
  t.equal(reply.status, 200, 'the API request succeeds')
  t.equal(reply.headers['x-ratelimit-remaining'], '48', 'only the login and this request counted against the API')
})

t.test('the docs limit is per address and answers 429 in the envelope when exceeded', async (t) => {
  const api = await startTestApi(t, { clock, env: { RATE_LIMIT_DOCS_PER_MINUTE: '3' } })
  for (let i = 1; i <= 3; i++) {
    const reply = await api.request('GET', '/openapi.json')
    t.equal(reply.status, 200)
    const headers = [reply.headers['x-ratelimit-limit'], reply.headers['x-ratelimit-remaining']]
    t.same(headers, ['3', String(3 - i)], `docs request ${i}: its own limit`)
  }
  const over = await api.request('GET', '/docs')
  assertError(t, over, 429, 'Demasiadas solicitudes', 'the 4th docs request')
  t.equal(over.headers['retry-after'], '30')
  t.equal((await api.request('GET', '/me')).status, 401, 'the API still answers that address')
})
