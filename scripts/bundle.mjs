#!/usr/bin/env node
// Bundles the built service (dist/src/app/serve.js and everything it imports) into one file,
// dist/src/app/serve.bundle.cjs, which `records serve` loads when it is current.
// Node spent most of a start finding, reading and compiling some 600 separate files;
// one file of the same code starts in about half the CPU time (docs/performance.md, "Start").
//
// The bundle sits beside serve.js on purpose: the few files that find a neighbour through
// import.meta.url (the package.json, assets/) are all one folder below dist/src/, so their
// relative paths resolve the same from the bundle; the read-audit worker, deeper, names its path
// from the bundle apart (src/db/audit/read-audit-writers.ts). Kept outside: the native
// driver and the lazily loaded drivers. Bundled packages that find their own files through
// __dirname (the docs page's) are pointed at their installed folder (besideTheirPackage).
import { build } from 'esbuild'
import { readdirSync, rmSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')

/** Packages loaded from node_modules as usual: native code, lazy imports, files beside their code. */
export const EXTERNAL = [
  'better-sqlite3', // native addon
  'pg', // imported only with DATABASE_URL
  'ioredis', // imported only with REDIS_URL
  'pino-pretty', // named by pino's optional pretty transport; not installed, never loaded
]

/**
 * Bundled code that finds its own files through `__dirname` (the docs page's assets and logo)
 * gets the folder of the installed package instead, found at run time: the bundle lives in dist/.
 */
const besideTheirPackage = {
  name: 'beside-their-package',
  setup(build) {
    build.onLoad(
      { filter: /node_modules[\\/]@fastify[\\/]swagger-ui[\\/](index|lib[\\/]routes)\.js$/ },
      async (args) => {
        const source = await readFile(args.path, 'utf8')
        const folder = args.path.endsWith('index.js') ? "''" : "'lib'"
        const dir = `require('node:path').join(__packageDir('@fastify/swagger-ui'), ${folder})`
        return { contents: source.replaceAll('__dirname', dir), loader: 'js' }
      },
    )
  },
}

/**
 * What both bundles share: Node 20, the packages above left outside, and minified, smaller to
 * read and parse, with function and class names kept (stack traces in the logs,
 * `constructor.name`).
 */
const NODE_BUNDLE = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  keepNames: true,
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
}

/** Writes the bundle of `root`'s dist/; resolves when it is on disk. */
export async function bundleService(root = ROOT) {
  const outdir = join(root, 'dist', 'src', 'app')
  // What earlier builds left: other bundle forms, chunks, a code cache of an older bundle.
  for (const name of readdirSync(outdir)) if (/^serve\.(bundle|chunk-)/.test(name)) rmSync(join(outdir, name))
  await build({
    ...NODE_BUNDLE,
    entryPoints: [join(outdir, 'serve.js')],
    outfile: join(outdir, 'serve.bundle.cjs'),
    // CommonJS, so that records serve can compile it with V8's code cache (src/cli/load-bundle.ts),
    // which Node 20 offers for scripts and not for ES modules. What the service imports on use
    // (the PostgreSQL dialect and pg, Redis) becomes a require() run on use, not at every start.
    format: 'cjs',
    supported: { 'dynamic-import': false },
    define: { 'import.meta.url': '__bundleUrl' },
    banner: {
      js: [
        "const __bundleUrl = require('node:url').pathToFileURL(__filename).href;",
        "const __packageDir = (name) => require('node:path').dirname(require.resolve(name));",
      ].join(''),
    },
    // Every other character escaped: src/cli/load-bundle.ts reads the file as latin1.
    charset: 'ascii',
    plugins: [besideTheirPackage],
  })
}

/**
 * The consultation log's writer thread (src/db/audit/read-audit-worker.ts) as one file,
 * dist/src/db/audit/read-audit-worker.bundle.mjs, which the bundled service starts (and the tests'
 * services, test/helpers/api.ts): a thread loads it in about 0.13 s of CPU instead of 0.35 s for
 * the 290 files it is made of. Written before the service's bundle: a current service bundle
 * always finds it.
 */
export async function bundleReadAuditWorker(root = ROOT) {
  const outdir = join(root, 'dist', 'src', 'db', 'audit')
  await build({
    ...NODE_BUNDLE,
    entryPoints: [join(outdir, 'read-audit-worker.js')],
    outfile: join(outdir, 'read-audit-worker.bundle.mjs'),
    format: 'esm',
    // Bundled CommonJS code that calls require() gets Node's own.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module';const require = __createRequire(import.meta.url);",
    },
  })
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  await bundleReadAuditWorker()
  await bundleService()
}
