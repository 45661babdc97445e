// Debian's headless Chromium for the browser tests (the docs page, the live feed, passkeys):
// one launch, one set of flags, one rule for a missing browser: outside CI the test is skipped
// loudly; in CI (CI set) a missing browser is a failure (.ci/run installs the package).
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import type { Test } from 'tap'
import { IN_CI } from './ci.js'

export const CHROMIUM = '/usr/bin/chromium'
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

export const chromiumAbsent = !existsSync(CHROMIUM)

/** tap's `skip` for a browser test: a loud reason outside CI without Chromium, else false. */
export function chromiumSkip(what: string): string | false {
  const skip =
    chromiumAbsent && !IN_CI
      ? `SKIPPED LOUDLY: no ${CHROMIUM} on this machine; install Debian's chromium package to run ${what}`
      : false
  if (skip !== false) console.error(`\n*** ${skip} ***\n`)
  return skip
}

/** A fresh profile's browser, closed and removed when `t` ends; undefined (and `t` failed) when missing in CI. */
export async function launchChromium(t: Test): Promise<{ context: BrowserContext; page: Page } | undefined> {
  if (chromiumAbsent) {
    t.fail(`${CHROMIUM} is missing in CI: .ci/run installs the chromium package`)
    return undefined
  }
  const userDataDir = mkdtempSync(join(tmpdir(), 'records-chromium-'))
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
  })
  t.teardown(async () => {
    await context.close()
    rmSync(userDataDir, { recursive: true, force: true })
  })
  return { context, page: context.pages()[0] ?? (await context.newPage()) }
}
