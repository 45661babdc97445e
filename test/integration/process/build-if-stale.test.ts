// `npm start`, `npm run records` and `npm run backup` build only when a source is newer than
// dist/: a start after `npm install` (whose `prepare` builds) runs no
// compiler. bin/records.js runs the check in its own process (no npm pre-hook, no second node
// process). Checked on a copy of the script and of bin/records.js in a temp tree whose "tsc"
// only leaves a mark.
import { spawnSync } from 'node:child_process'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'

const ROOT = new URL('../../../', import.meta.url).pathname

t.test('package.json builds at install, and start/records/backup only check', async (t) => {
  const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
    .scripts
  t.equal(scripts['prepare'], 'npm run --silent build')
  for (const name of ['start', 'records', 'backup']) {
    t.equal(scripts[`pre${name}`], undefined, `no pre${name} hook: bin/records.js checks in its own process`)
    t.match(scripts[name] ?? '', /^node (--\S+ )*bin\/records\.js\b/, `${name} runs bin/records.js`)
    t.notMatch(scripts[name] ?? '', /tsc|build/, `${name} itself never compiles`)
  }
})

t.test('dist/ up to date runs no compiler; a newer source rebuilds', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'records-stale-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  for (const dir of ['bin', 'scripts', 'src/cli', 'dist/src/cli', 'node_modules/typescript/bin'])
    mkdirSync(join(root, dir), { recursive: true })
  copyFileSync(join(ROOT, 'scripts/build-if-stale.mjs'), join(root, 'scripts/build-if-stale.mjs'))
  copyFileSync(join(ROOT, 'bin/records.js'), join(root, 'bin/records.js'))
  writeFileSync(join(root, 'package.json'), '{"type":"module"}\n')
  const mark = join(root, 'compiled')
  writeFileSync(
    join(root, 'node_modules/typescript/bin/tsc'),
    `require('fs').writeFileSync(${JSON.stringify(mark)}, 'yes')\n`,
  )
  writeFileSync(join(root, 'src/cli/main.ts'), 'export {}\n')
  writeFileSync(join(root, 'dist/src/cli/main.js'), 'export {}\n')
  const past = new Date(Date.now() - 60_000)
  utimesSync(join(root, 'src/cli/main.ts'), past, past)
  const check = () => spawnSync(process.execPath, [join(root, 'scripts/build-if-stale.mjs')], { encoding: 'utf8' })

  const fresh = check()
  t.equal(fresh.status, 0)
  t.equal(fresh.stderr, '', 'says nothing')
  t.notOk(existsSync(mark), 'no compiler when dist/ is newer than every source')

  writeFileSync(join(root, 'src/cli/main.ts'), 'export const edited = true\n')
  const stale = check()
  t.equal(stale.status, 0)
  t.match(stale.stderr, /fuentes modificadas desde la última compilación: compilando/)
  t.ok(existsSync(mark), 'an edited source is compiled')
})

t.test('under npm start, bin/records.js runs the check itself before it runs dist/', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'records-stale-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  for (const dir of ['bin', 'scripts', 'src/cli', 'dist/src/cli', 'node_modules/typescript/bin'])
    mkdirSync(join(root, dir), { recursive: true })
  copyFileSync(join(ROOT, 'scripts/build-if-stale.mjs'), join(root, 'scripts/build-if-stale.mjs'))
  copyFileSync(join(ROOT, 'bin/records.js'), join(root, 'bin/records.js'))
  writeFileSync(join(root, 'package.json'), '{"type":"module"}\n')
  const mark = join(root, 'compiled')
  writeFileSync(
    join(root, 'node_modules/typescript/bin/tsc'),
    `require('fs').writeFileSync(${JSON.stringify(mark)}, 'yes')\n`,
  )
  const ran = join(root, 'ran')
  writeFileSync(
    join(root, 'dist/src/cli/main.js'),
    `import { writeFileSync } from 'node:fs'\nwriteFileSync(${JSON.stringify(ran)}, 'yes')\n`,
  )
  writeFileSync(join(root, 'src/cli/main.ts'), 'export {}\n')
  const past = new Date(Date.now() - 60_000)
  utimesSync(join(root, 'src/cli/main.ts'), past, past)
  const run = (script = 'start') =>
    spawnSync(process.execPath, [join(root, 'bin/records.js'), '--version'], {
      encoding: 'utf8',
      env: { ...process.env, npm_lifecycle_event: script },
    })

  const fresh = run()
  t.equal(fresh.status, 0, fresh.stderr)
  t.equal(fresh.stderr, '')
  t.notOk(existsSync(mark), 'no compiler when dist/ is up to date')
  t.ok(existsSync(ran), 'dist/ ran')

  writeFileSync(join(root, 'src/cli/main.ts'), 'export const edited = true\n')
  const direct = run('')
  t.equal(direct.status, 0, direct.stderr)
  t.notOk(existsSync(mark), 'run directly (not by npm start/records/backup) it never compiles')
  const stale = run()
  t.equal(stale.status, 0, stale.stderr)
  t.match(stale.stderr, /fuentes modificadas desde la última compilación: compilando/)
  t.ok(existsSync(mark), 'an edited source is compiled before dist/ runs')
})

t.test('a rebuild also makes the one-file service when esbuild is installed, and skips it when not', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'records-stale-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  for (const dir of ['scripts', 'src/cli', 'dist/src/cli', 'node_modules/typescript/bin'])
    mkdirSync(join(root, dir), { recursive: true })
  copyFileSync(join(ROOT, 'scripts/build-if-stale.mjs'), join(root, 'scripts/build-if-stale.mjs'))
  writeFileSync(join(root, 'package.json'), '{"type":"module"}\n')
  writeFileSync(join(root, 'node_modules/typescript/bin/tsc'), '\n')
  const bundled = join(root, 'bundled')
  // scripts/bundle.mjs stands in for the real one (which needs a whole dist/): it leaves a mark.
  writeFileSync(
    join(root, 'scripts/bundle.mjs'),
    `import { writeFileSync } from 'node:fs'\nwriteFileSync(${JSON.stringify(bundled)}, 'yes')\n`,
  )
  writeFileSync(join(root, 'dist/src/cli/main.js'), 'export {}\n')
  const check = () => spawnSync(process.execPath, [join(root, 'scripts/build-if-stale.mjs')], { encoding: 'utf8' })

  writeFileSync(join(root, 'src/cli/main.ts'), 'export const edited = 1\n')
  t.equal(check().status, 0)
  t.notOk(existsSync(bundled), 'no esbuild installed: tsc only, and `records serve` runs the compiled modules')

  mkdirSync(join(root, 'node_modules/esbuild'), { recursive: true })
  writeFileSync(join(root, 'src/cli/main.ts'), 'export const edited = 2\n')
  t.equal(check().status, 0)
  t.ok(existsSync(bundled), 'with esbuild: tsc, then scripts/bundle.mjs')
})
