// Module hooks of the test processes (register.mjs): a TypeScript source is transpiled by
// esbuild, the project's bundler, in about a millisecond; tap's own ts-node loader took about
// 2 s of CPU for each test process that imports the service (TypeScript's compiler is loaded
// and run file by file). Transpiling only: `npm run typecheck` checks the types. The output is
// what `tsc` emits for tsconfig.json (ES modules, verbatimModuleSyntax, no downleveling), with
// an inline source map, so stack traces and tap's coverage name the .ts lines.
// Every process and worker thread has its own hooks (the service's read-audit worker among
// them): the output is kept in a cache keyed by the source's content, so most of them never
// start esbuild at all.
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { readFile, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const tsconfigRaw = {
  compilerOptions: JSON.parse(readFileSync(new URL('../../tsconfig.json', import.meta.url), 'utf8')).compilerOptions,
}
const target = `node${process.versions.node}`
const esbuildVersion = JSON.parse(
  readFileSync(new URL('../../node_modules/esbuild/package.json', import.meta.url), 'utf8'),
).version
// Beside the packages, not in TMPDIR: scripts/tap.mjs gives each run a TMPDIR of its own.
const CACHE = fileURLToPath(new URL('../../node_modules/.cache/records-test-transpiled/', import.meta.url))
mkdirSync(CACHE, { recursive: true, mode: 0o700 })
const salt = JSON.stringify([esbuildVersion, target, tsconfigRaw])

async function transpile(path, source) {
  const key = createHash('sha256').update(salt).update(path).update('\0').update(source).digest('hex')
  const file = join(CACHE, `${key}.js`)
  try {
    return await readFile(file, 'utf8')
  } catch {
    // Not cached yet: transpile below.
  }
  const { transform } = await import('esbuild')
  const { code } = await transform(source, {
    loader: 'ts',
    format: 'esm',
    target,
    sourcemap: 'inline',
    sourcefile: path,
    tsconfigRaw,
  })
  // Written aside, then renamed: a process reading the cache never sees half a file.
  const partial = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`
  await writeFile(partial, code, { mode: 0o600 })
  await rename(partial, file)
  return code
}

/**
 * Packages whose ES build is many files, each a round trip to these hooks' thread on Node 20
 * (kysely 262, tap and its own packages about 170, @simplewebauthn/server 72), and whose
 * CommonJS build, the same version compiled by its authors, gives Node the same named exports.
 */
const COMMONJS_BUILDS = new Set(['kysely', 'tap', '@simplewebauthn/server'])

const TESTS = new URL('../', import.meta.url).href
const SETUP = new URL('./', import.meta.url).href
/** The `t` of a test file and of the test helpers: the test of the file being run (file-tap.ts). */
const FILE_TAP = new URL('./file-tap.ts', import.meta.url).href

const packageName = (specifier) => specifier.split('/', specifier.startsWith('@') ? 2 : 1).join('/')

/**
 * NodeNext: a relative `./x.js` in a source names `./x.ts` (as ts-node resolved it); looked up
 * before Node's own resolution, which would throw (and build a stack) for each such import.
 * A package of COMMONJS_BUILDS that a source imports loads its CommonJS build, which `require`
 * reads on the test's own thread; `npm start` and dist/ load the ES builds.
 */
export async function resolve(specifier, context, next) {
  if (!context.parentURL?.endsWith('.ts')) return next(specifier, context)
  if (specifier === 'tap' && context.parentURL.startsWith(TESTS) && !context.parentURL.startsWith(SETUP))
    return { url: FILE_TAP, format: 'module', shortCircuit: true }
  if (/^\.{1,2}\/.*\.js$/.test(specifier)) {
    const url = new URL(`${specifier.slice(0, -3)}.ts`, context.parentURL)
    if (existsSync(fileURLToPath(url))) return { url: url.href, format: 'module', shortCircuit: true }
  } else if (COMMONJS_BUILDS.has(packageName(specifier))) {
    const conditions = [...context.conditions.filter((c) => c !== 'import'), 'require']
    return next(specifier, { ...context, conditions })
  }
  return next(specifier, context)
}

export async function load(url, context, next) {
  if (!url.startsWith('file:') || !/\.m?ts$/.test(new URL(url).pathname)) return next(url, context)
  const path = fileURLToPath(url)
  return { format: 'module', source: await transpile(path, await readFile(path, 'utf8')), shortCircuit: true }
}
