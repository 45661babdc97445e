// `npm start`, `npm run records` and `npm run backup` build only when a source is newer than
// dist/ (issue #18 item 1): a start after `npm install` (whose `prepare` builds) runs no
// compiler. Checked on a copy of the script in a temp tree whose "tsc" only leaves a mark.
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'

const ROOT = new URL('../../../', import.meta.url).pathname

t.test('#18: package.json builds at install, and start/records/backup only check', async (t) => {
  const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts
  t.equal(scripts['prepare'], 'npm run --silent build')
  for (const name of ['start', 'records', 'backup']) {
    t.equal(scripts[`pre${name}`], 'node scripts/build-if-stale.mjs', `pre${name}`)
    t.notMatch(scripts[name] ?? '', /tsc|build/, `${name} itself never compiles`)
  }
})

t.test('#18: dist/ up to date runs no compiler; a newer source rebuilds', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'records-stale-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  for (const dir of ['scripts', 'src/cli', 'dist/src/cli', 'node_modules/typescript/bin']) mkdirSync(join(root, dir), { recursive: true })
  copyFileSync(join(ROOT, 'scripts/build-if-stale.mjs'), join(root, 'scripts/build-if-stale.mjs'))
  const mark = join(root, 'compiled')
  writeFileSync(join(root, 'node_modules/typescript/bin/tsc'), `require('fs').writeFileSync(${JSON.stringify(mark)}, 'yes')\n`)
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
