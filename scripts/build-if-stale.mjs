#!/usr/bin/env node
// Builds dist/ only when a source is newer than the last build: `npm start`,
// `npm run records` and `npm run backup` start in well under a second after `npm install`
// (whose `prepare` builds), and a developer who edited src/ still runs what they wrote.
// A stat of each source file costs a few milliseconds; tsc costs ten seconds.
// bin/records.js imports it and runs the check in its own process (no npm pre-hook: a second
// node process cost about a tenth of a second of every start); run as a script, it checks alone.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const SOURCES = ['src', 'scripts', 'schema', 'tsconfig.json', 'tsconfig.build.json']

function newest(path) {
  const stat = statSync(path, { throwIfNoEntry: false })
  if (stat === undefined) return 0
  if (!stat.isDirectory()) return /\.(ts|json)$/.test(path) ? stat.mtimeMs : 0
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))))
}

/**
 * Builds `root`'s dist/ (tsc, the shape validator, then the bundle) if a source is newer; returns
 * the exit status (0: dist/ is usable).
 */
export function buildIfStale(root = ROOT) {
  const built = statSync(join(root, 'dist', 'src', 'cli', 'main.js'), { throwIfNoEntry: false })?.mtimeMs ?? 0
  const changed = Math.max(...SOURCES.map((s) => newest(join(root, s))))
  if (built >= changed) return 0
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc')
  if (!existsSync(tsc)) {
    // An install without devDependencies runs what it was given.
    if (built > 0) return 0
    process.stderr.write('records: falta la compilación en dist/ y TypeScript no está instalado: ejecute npm install\n')
    return 1
  }
  process.stderr.write(
    built === 0 ? 'Compilando (primera vez)…\n' : 'Hay fuentes modificadas desde la última compilación: compilando…\n',
  )
  const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' })
  if (result.status !== 0) return result.status ?? 1
  // modules.yaml's shape validator as code (scripts/build-modules-validator.mjs), as `npm run build`
  // does; without the module tsc builds it from, the service compiles the schema when it needs it.
  if (existsSync(join(root, 'dist', 'src', 'config', 'shape-validator.js'))) {
    const validator = spawnSync(process.execPath, [join(root, 'scripts', 'build-modules-validator.mjs')], {
      stdio: 'inherit',
    })
    if (validator.status !== 0) return validator.status ?? 1
  }
  // Then the one-file service (scripts/bundle.mjs), as `npm run build` does. Without esbuild the
  // old bundle is older than the new build, and `records serve` runs the compiled modules.
  if (!existsSync(join(root, 'node_modules', 'esbuild'))) return 0
  const bundled = spawnSync(process.execPath, [join(root, 'scripts', 'bundle.mjs')], { stdio: 'inherit' })
  return bundled.status ?? 1
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) process.exit(buildIfStale())
