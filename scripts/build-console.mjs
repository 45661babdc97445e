#!/usr/bin/env node
// Builds the browser console (D44, D46) from src/console/ into dist/console/: one script and
// one style sheet with hashed names (cached for good by browsers), and index.html naming them.
// Run by `npm run build` (and so by `prepare` at install).
import { build } from 'esbuild'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')

/** Writes `root`'s dist/console/; resolves with the names of the files written. */
export async function buildConsole(root = ROOT, outdir = join(root, 'dist', 'console')) {
  rmSync(outdir, { recursive: true, force: true })
  mkdirSync(outdir, { recursive: true })
  const result = await build({
    entryPoints: [join(root, 'src', 'console', 'main.ts')],
    outdir,
    entryNames: '[name]-[hash]',
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome110', 'firefox110', 'safari16'],
    minify: true,
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
  })
  const outputs = Object.keys(result.metafile.outputs).map((file) => basename(file))
  const script = outputs.find((f) => f.endsWith('.js'))
  const style = outputs.find((f) => f.endsWith('.css'))
  if (script === undefined || style === undefined)
    throw new Error(`console build: expected one .js and one .css, got ${outputs}`)
  const page = readFileSync(join(root, 'src', 'console', 'index.html'), 'utf8')
    .replace('%SCRIPT%', script)
    .replace('%STYLE%', style)
  writeFileSync(join(outdir, 'index.html'), page)
  return ['index.html', script, style]
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) await buildConsole()
