// What the threads and processes a test starts (the service's worker threads, `records` and the
// server as children) run: the compiled dist/ and bundle when the build is current, else the
// TypeScript sources, with what a test adds to their environment and node options then.
//
// They start with the test's execArgv, tap's ts-node loader among them: about half a second of
// CPU each to load TypeScript's compiler, which test/setup/register.mjs (esbuild) makes useless.
// ts-node's preload skips itself when TAP_TYPE_STRIP_ONLY is 1 (tap sets it to 0 when it loads).
import { readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

export const WITHOUT_TS_NODE = { TAP_TYPE_STRIP_ONLY: '1' } as const

// tap's preloads that a child never needs: its TypeScript plugin (test/setup/register.mjs
// transpiles) and its mock plugin (no test mocks a module, and a child could not use it). The
// mock plugin registers a loader hook of its own, one more step for every module the child loads.
const USELESS_IN_A_CHILD = /^--import=\S*@tapjs\/(typescript|mock)\//

/**
 * The node options a child started from the TypeScript sources needs before its entry: the
 * test's own (process.execArgv: test/setup/register.mjs, source maps, tap's processinfo, which
 * records the child's coverage) without the preloads of tap that only cost the child CPU.
 */
export function childExecArgv(): string[] {
  return process.execArgv.filter((arg) => !USELESS_IN_A_CHILD.test(arg))
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

let built: boolean | undefined

/**
 * Whether dist/ holds every source of src/ compiled since it last changed (`npm test` builds
 * before tap; a test run alone after an edit may not have): children run it then, else the
 * TypeScript sources through the test's loader, slower and as current.
 */
export function distIsCurrent(): boolean {
  built ??= readdirSync(join(ROOT, 'src'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((source) => !source.startsWith(join(ROOT, 'src', 'console')))
    .every((source) => {
      const compiled = statSync(join(ROOT, 'dist', relative(ROOT, source)).replace(/\.ts$/, '.js'), {
        throwIfNoEntry: false,
      })
      return compiled !== undefined && compiled.mtimeMs >= statSync(source).mtimeMs
    })
  return built
}

const READ_AUDIT_WORKER_BUNDLE = new URL('../../dist/src/db/audit/read-audit-worker.bundle.mjs', import.meta.url)

/**
 * The consultation log's writer thread (SQLite) as the tests start it: the bundle `npm run build`
 * makes of it (scripts/bundle.mjs), the one the installed service starts, without the test
 * process's loaders (esbuild's hooks, tap's processinfo and its coverage). From the sources a
 * thread cost about 1.4 s of CPU, from the bundle 0.13 s: a file of API tests starts several.
 * Undefined without a current build (the sources' thread then).
 */
export function builtReadAuditWorker(): { url: URL; execArgv: string[] } | undefined {
  const bundled = statSync(READ_AUDIT_WORKER_BUNDLE, { throwIfNoEntry: false })?.mtimeMs
  const compiled = statSync(join(ROOT, 'dist/src/db/audit/read-audit-worker.js'), { throwIfNoEntry: false })?.mtimeMs
  const current = distIsCurrent() && bundled !== undefined && compiled !== undefined && bundled >= compiled
  return current ? { url: READ_AUDIT_WORKER_BUNDLE, execArgv: [] } : undefined
}
