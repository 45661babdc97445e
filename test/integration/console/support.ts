// The console's browser tests (D44, D46): the console built from its sources, a started service
// on a real port, and a Chromium page that records every console error, page error and CSP
// violation, with axe-core's accessibility check and screenshots in test-output/console/.
import { execFileSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs'
import type { BrowserContext, Page } from 'playwright-core'
import type { Test } from 'tap'
import { startTestApi, type StartOptions, type TestApi } from '../../helpers/api.js'
import { launchChromium } from '../../helpers/chromium.js'

const ROOT = new URL('../../../', import.meta.url).pathname
export const SHOTS = `${ROOT}test-output/console/`
const AXE = readFileSync(`${ROOT}node_modules/axe-core/axe.min.js`, 'utf8')

/** The newest change among the console's sources, or 0 for a build that is missing. */
const newest = (dir: string): number => Math.max(...readdirSync(dir).map((name) => statSync(`${dir}${name}`).mtimeMs))
const built = (): number => {
  try {
    return statSync(`${ROOT}dist/console/index.html`).mtimeMs
  } catch {
    return 0
  }
}

/**
 * dist/console/ from the current sources (the service serves what it finds there at start),
 * rebuilt only when a source is newer than the build: a rebuild empties the folder first, and
 * the console test files run side by side, so one rebuilding under another's running service
 * would take its files away.
 */
export function buildConsole(): void {
  if (built() < newest(`${ROOT}src/console/`))
    execFileSync(process.execPath, [`${ROOT}scripts/build-console.mjs`], { stdio: 'inherit' })
  mkdirSync(SHOTS, { recursive: true })
}

/** A started service listening on a free port: its test API and the console's address. */
export async function consoleService(t: Test, options: StartOptions = {}): Promise<{ api: TestApi; url: string }> {
  const api = await startTestApi(t, options)
  const address = await api.service.app.listen({ port: 0, host: '127.0.0.1' })
  return { api, url: `${address}${api.base}/consola/` }
}

/**
 * Status lines Chromium writes for every 4xx answer of fetch(): the API's answers the flows
 * expect (401 second factor, 400 motivo, 409 conflict). Every other console line is a problem.
 */
const API_REFUSAL = /^Failed to load resource: the server responded with a status of 4\d\d/

export interface ConsolePage {
  readonly page: Page
  /** Console errors and warnings, page errors and CSP violations seen so far. */
  readonly problems: string[]
  /** axe-core's serious and critical violations of the page as it is now. */
  axe(): Promise<string[]>
  shot(name: string): Promise<void>
  /** Another tab of the same browser (its own sessionStorage), watched as this one. */
  another(): Promise<ConsolePage>
}

/**
 * axe-core is evaluated through DevTools (page.evaluate), which a page's CSP does not govern: the
 * page's real policy stays as served, and no inline script is added that it would have to allow.
 */
async function watched(context: BrowserContext, page: Page): Promise<ConsolePage> {
  const problems: string[] = []
  page.on('console', (message) => {
    if ((message.type() === 'error' || message.type() === 'warning') && !API_REFUSAL.test(message.text()))
      problems.push(`console ${message.type()}: ${message.text()}`)
  })
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
  await page.addInitScript(
    "addEventListener('securitypolicyviolation', (e) => console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI))",
  )
  return {
    page,
    problems,
    async axe() {
      if ((await page.evaluate('typeof axe')) === 'undefined') await page.evaluate(AXE)
      const violations = (await page.evaluate(
        "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length })))",
      )) as { id: string; impact: string; help: string; nodes: number }[]
      return violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes})`)
    },
    async shot(name) {
      await page.screenshot({ path: `${SHOTS}${name}.png`, fullPage: true })
    },
    another: async () => watched(context, await context.newPage()),
  }
}

export async function openConsole(t: Test): Promise<ConsolePage | undefined> {
  const browser = await launchChromium(t)
  return browser === undefined ? undefined : watched(browser.context, browser.page)
}

/** Signs in through the console's form: the user name, the password, then Entrar. */
export async function signIn(page: Page, username: string, password: string): Promise<void> {
  await page.getByLabel('Usuario', { exact: true }).fill(username)
  await page.getByLabel('Contraseña', { exact: true }).fill(password)
  await page.getByRole('button', { name: 'Entrar', exact: true }).click()
}

/** The record ids of the list on the page, in order. */
export const listedIds = (page: Page): Promise<string[]> => page.locator('tbody th a').allTextContents()

/** Asks `probe` every 25 ms until it equals `expected` (JSON) or 10 s pass; the last value. */
export async function settled<T>(probe: () => Promise<T>, expected: T): Promise<T> {
  const until = Date.now() + 10_000
  for (;;) {
    const value = await probe()
    if (JSON.stringify(value) === JSON.stringify(expected) || Date.now() > until) return value
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}
