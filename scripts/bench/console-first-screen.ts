// D44: how fast the console shows, as a user meets it. The service built for `npm start` (a child
// with the flags of `npm start`, on the run's database) and Debian's Chromium (headless, the test
// flags), already running as a user's browser is. Each round opens a fresh browser context (no
// cache, no session) at /api/consola/ and times, from the navigation's start:
//   - the first screen: the sign-in form's user field visible;
//   - after signing in (the first account): the module list visible.
// The page's own first contentful paint is read too. The console's compressed size is summed
// as the service serves it (gzip -9 of each built file).
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { gzipSync } from 'node:zlib'
import { chromium } from 'playwright-core'
import { SERVICE_NODE_FLAGS } from '../../src/node-flags.js'
import { startChild } from './processes.js'

const CHROMIUM = '/usr/bin/chromium'
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run']

export interface ConsoleFigures {
  readonly rounds: number
  readonly compressedBytes: number
  /** Milliseconds from the navigation's start, one per round. */
  readonly firstScreenMs: readonly number[]
  readonly firstPaintMs: readonly number[]
  readonly signedInMs: readonly number[]
}

export interface ConsoleBenchOptions {
  readonly env: Record<string, string>
  readonly root: string
  readonly password: string
  readonly rounds: number
  readonly log: (line: string) => void
}

/** gzip -9 of each file of dist/console/, summed: what a first visit downloads. */
export function consoleCompressedBytes(root: string): number {
  const dir = join(root, 'dist', 'console')
  return readdirSync(dir).reduce((sum, name) => sum + gzipSync(readFileSync(join(dir, name)), { level: 9 }).length, 0)
}

export async function measureConsole(options: ConsoleBenchOptions): Promise<ConsoleFigures> {
  const service = await startChild(join(options.root, 'dist/src/app/server.js'), options.env, '/api/health', [
    ...SERVICE_NODE_FLAGS,
  ])
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS })
  const firstScreenMs: number[] = []
  const firstPaintMs: number[] = []
  const signedInMs: number[] = []
  try {
    const url = `http://127.0.0.1:${service.port}/api/consola/`
    for (let round = 0; round < options.rounds; round += 1) {
      const context = await browser.newContext()
      try {
        const page = await context.newPage()
        const started = performance.now()
        await page.goto(url, { waitUntil: 'commit' })
        await page.getByLabel('Usuario', { exact: true }).waitFor()
        firstScreenMs.push(performance.now() - started)
        const paint = (await page.evaluate(
          "performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1",
        )) as number
        if (paint >= 0) firstPaintMs.push(paint)
        await page.getByLabel('Usuario', { exact: true }).fill('admin')
        await page.getByLabel('Contraseña').fill(options.password)
        const signing = performance.now()
        await page.getByRole('button', { name: 'Entrar', exact: true }).click()
        await page.locator('ul.modules a').first().waitFor()
        signedInMs.push(performance.now() - signing)
      } finally {
        await context.close()
      }
    }
  } finally {
    await browser.close()
    await service.stop()
  }
  const figures = {
    rounds: options.rounds,
    compressedBytes: consoleCompressedBytes(options.root),
    firstScreenMs,
    firstPaintMs,
    signedInMs,
  }
  options.log(`console: ${options.rounds} rounds measured`)
  return figures
}

const median = (xs: readonly number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted.length === 0 ? Number.NaN : (sorted[Math.floor((sorted.length - 1) / 2)] as number)
}

/** The figures as the bench prints them, against D44's targets (150 KB compressed, first screen under 1 s). */
export function formatConsole(f: ConsoleFigures): string {
  const ms = (xs: readonly number[]) => `median ${median(xs).toFixed(0)} ms, slowest ${Math.max(...xs).toFixed(0)} ms`
  const firstOk = Math.max(...f.firstScreenMs) < 1000
  return [
    `  compressed size   ${f.compressedBytes.toLocaleString('en')} bytes (target under 150 KB: ${f.compressedBytes < 150 * 1024 ? 'met' : 'MISSED'})`,
    `  first screen      ${ms(f.firstScreenMs)} over ${f.rounds} fresh contexts (target under 1 s: ${firstOk ? 'met' : 'MISSED'})`,
    `  first paint       ${f.firstPaintMs.length === 0 ? 'n/a' : ms(f.firstPaintMs)} (the page's own first contentful paint)`,
    `  signed in         ${ms(f.signedInMs)} from Entrar to the module list`,
  ].join('\n')
}
