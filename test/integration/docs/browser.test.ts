// The docs page in a real headless Chromium: it loads from this process with helmet's
// CSP, lists the nine modules, and a person can log in, authorize with the token and call a list.
// Needs /usr/bin/chromium (Debian's package; .ci/run installs it). Without it, outside CI, the
// test is skipped loudly; in CI (CI set) a missing browser is a failure.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Locator } from 'playwright-core'
import t from 'tap'
import { ADMIN, VALID, startTestApi } from '../../helpers/api.js'
import { chromiumSkip, launchChromium } from '../../helpers/chromium.js'

const ARTIFACTS = new URL('../../../test-artifacts/', import.meta.url).pathname

/** "Try it out" starts on (tryItOutEnabled); click it only if a person would have to. */
async function tryItOut(operation: Locator): Promise<void> {
  const button = operation.locator('.try-out__btn')
  if ((await button.count()) > 0 && /try it out/i.test((await button.first().textContent()) ?? ''))
    await button.first().click()
}

const skip = chromiumSkip('the browser test')

t.test('the docs page lists the nine modules and a call made from it succeeds', { skip }, async (t) => {
  const api = await startTestApi(t)
  const created = await api.create('denuncias', VALID['denuncias']?.())
  const address = await api.service.app.listen({ port: 0, host: '127.0.0.1' })
  const browser = await launchChromium(t)
  if (browser === undefined) return
  const { page } = browser
  const problems: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text())
  })
  page.on('pageerror', (error) => problems.push(error.message))
  const outside: string[] = []
  page.on('request', (request) => {
    if (!request.url().startsWith(address)) outside.push(request.url())
  })

  t.teardown(async () => {
    mkdirSync(ARTIFACTS, { recursive: true })
    await page.screenshot({ path: join(ARTIFACTS, 'docs-page.png'), fullPage: true }).catch(() => undefined)
  })
  mkdirSync(ARTIFACTS, { recursive: true })
  await page.goto(`${address}/api/docs`)
  await page.waitForSelector('.opblock-tag-section', { timeout: 30_000 })
  const tags = await page
    .locator('.opblock-tag-section h3 .opblock-tag, .opblock-tag-section .opblock-tag')
    .evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-tag')).filter((n): n is string => n !== null))
  const modules = api.service.spec.modules.map((m) => m.name)
  t.equal(modules.length, 9)
  for (const name of modules) t.ok(tags.includes(name), `the page lists ${name}`)

  // Log in from the page: the login operation, "Try it out", the credentials, Execute.
  await page.locator('[data-tag="sesion"]').first().click()
  const login = page.locator('#operations-sesion-login')
  await login.locator('.opblock-summary').click()
  await tryItOut(login)
  await login
    .locator('textarea.body-param__text')
    .fill(JSON.stringify({ username: ADMIN.username, password: ADMIN.password }))
  await login.locator('.execute').click()
  const loginBody = login
    .locator(
      '.live-responses-table .response-col_description pre.microlight, .live-responses-table .highlight-code pre',
    )
    .first()
  await loginBody.waitFor({ timeout: 30_000 })
  const token = /"token": "([^"]+)"/.exec((await loginBody.textContent()) ?? '')?.[1]
  if (token === undefined) return t.fail('the login answer shows a token')

  // Authorize with the token, as a person pastes it.
  await page.locator('.auth-wrapper .authorize').click()
  // The bearer scheme's form (the live feed's ticket scheme, D36, has its own).
  const bearer = page.locator('.modal-ux form').filter({ hasText: 'bearer' })
  await bearer.locator('input[type="text"], input:not([type])').first().fill(token)
  await bearer.locator('.auth-btn-wrapper .authorize').click()
  await page.locator('.modal-ux .btn-done').first().click()

  // GET /denuncias from the page, Execute with what the page pre-fills: it must list the records.
  await page.locator('[data-tag="denuncias"]').first().click()
  const list = page.locator('#operations-denuncias-list_Denuncias')
  await list.locator('.opblock-summary').click()
  await tryItOut(list)
  const rows = await list.locator('tr[data-param-name]').count()
  t.ok(rows > 0 && rows <= 8, `the list has a handful of parameters, not one per field and operator (${rows})`)
  await list.locator('.execute').click()
  const status = list.locator('.live-responses-table .response .response-col_status').first()
  await status.waitFor({ timeout: 30_000 })
  t.equal((await status.textContent())?.trim(), '200', 'the list called from the page answers 200')
  const answer = (await list.locator('.live-responses-table').textContent()) ?? ''
  t.match(answer, /"success": true/)
  t.match(answer, new RegExp(`"_id": "${String(created['_id'])}"`), 'Execute with the defaults lists the record')
  const url = (await list.locator('.request-url pre').first().textContent()) ?? ''
  t.notMatch(url, /[?&](sort|fields|q|expand)=/, `no pre-filled sort, fields, q or expand: ${url}`)
  await list.screenshot({ path: join(ARTIFACTS, 'docs-list.png') }).catch(() => undefined)

  // The second example of `filtros` filters: chosen from the list, its key goes on the query string.
  const examples = list.locator('.parameters select').filter({ hasText: 'Sin filtros' })
  const options = await examples.locator('option').allTextContents()
  t.ok(options.length >= 2, 'filtros offers the unfiltered default and an example filter')
  await examples.selectOption({ index: 1 })
  await list.locator('.execute').click()
  await page.waitForTimeout(500)
  const filtered = (await list.locator('.request-url pre').first().textContent()) ?? ''
  t.match(filtered, /[?&]estado=pendiente/, `the filter is sent as its own key: ${filtered}`)

  t.same(outside, [], 'the page fetched nothing from another origin (no CDN)')
  t.same(
    problems.filter((p) => /Content Security Policy|Refused/i.test(p)),
    [],
    'no CSP violation',
  )
})
