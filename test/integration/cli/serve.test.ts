// `records serve` is the service (what `npm start` runs): it listens, answers, and stops on
// SIGTERM with status 0; a refused migration stops it with status 1 and the reason.
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { REPO_MODULES } from '../../helpers/api.js'
import { startServerProcess } from '../../helpers/server-process.js'
import { createCli, ROOT, type Cli } from './support.js'

/** `records serve` in a child, from dist/: its base URL once it listens (the test fails otherwise). */
const startServe = (t: Test, cli: Cli, env: Record<string, string> = {}) =>
  startServerProcess(t, { entry: 'dist', cwd: cli.dataDir, env: { ...cli.env, ...env } })

t.test('records serve listens and exits 0 on SIGTERM', async (t) => {
  const server = await startServe(t, createCli(t))
  t.same(await (await fetch(`${server.base}/health`)).json(), { success: true, data: { status: 'ok' } })
  t.equal(await server.stop(), 0)
})

t.test('records serve runs the one-file build and reuses its validated modules.yaml until it changes', async (t) => {
  const bundle = statSync(join(ROOT, 'dist/src/app/serve.bundle.cjs'), { throwIfNoEntry: false })
  const compiled = statSync(join(ROOT, 'dist/src/app/serve.js'))
  t.ok(
    bundle !== undefined && bundle.mtimeMs >= compiled.mtimeMs,
    'npm run build bundles after tsc (scripts/bundle.mjs)',
  )
  const cli = createCli(t)
  const file = join(cli.dataDir, 'modules.yaml')
  writeFileSync(file, readFileSync(REPO_MODULES, 'utf8'))
  t.ok(
    readFileSync(join(ROOT, 'dist/src/app/serve.bundle.cjs')).every((byte) => byte < 0x80),
    'the bundle is ASCII: records serve reads it as latin1 (load-bundle.ts)',
  )
  const first = await startServe(t, cli, { MODULES_FILE: file })
  t.equal((await fetch(`${first.base}/health`)).status, 200)
  // The docs page's plugin is in the bundle; its assets still come from its installed package.
  for (const asset of ['/docs/static/swagger-ui-bundle.js', '/docs/static/logo.svg']) {
    const response = await fetch(`${first.base}${asset}`)
    t.ok(response.status === 200 && (await response.arrayBuffer()).byteLength > 0, `${asset} served by the bundle`)
  }
  t.equal(await first.stop(), 0)
  const kept = join(cli.dataDir, '.modules-validado.json')
  t.equal(statSync(kept).mode & 0o777, 0o600, 'the validation is kept in DATA_DIR, 0600')
  const codeCache = join(ROOT, 'dist/src/app/serve.bundle.cjs.cache')
  t.ok(statSync(codeCache, { throwIfNoEntry: false })?.isFile(), "V8's compiled code kept beside the bundle")

  // Damaged, both: ignored (V8 rejects a cache that does not fit), rebuilt, rewritten.
  writeFileSync(kept, 'no es JSON')
  writeFileSync(codeCache, 'no es código')
  const second = await startServe(t, cli, { MODULES_FILE: file })
  t.equal((await fetch(`${second.base}/health`)).status, 200)
  t.equal(await second.stop(), 0)
  t.doesNotThrow(() => JSON.parse(readFileSync(kept, 'utf8')), 'rewritten by the start')
  t.not(readFileSync(codeCache, 'utf8'), 'no es código', 'a rejected code cache is written again')

  // A changed modules.yaml is never taken from the kept validation: an error in it stops the start.
  writeFileSync(file, readFileSync(REPO_MODULES, 'utf8').replace(/prefix: DEN\b/, 'prefix: den'))
  const refused = await cli.run(['serve'], { env: { MODULES_FILE: file, PORT: '0' } })
  t.equal(refused.status, 1)
  t.match(refused.stderr, /prefijo/)
})

t.test('records serve refuses an unsafe modules.yaml with status 1 and the reason', async (t) => {
  const cli = createCli(t)
  t.equal((await cli.run(['migrate'])).status, 0)
  const file = join(cli.dataDir, 'modules.yaml')
  writeFileSync(
    file,
    readFileSync(REPO_MODULES, 'utf8').replace(
      '      destino: { type: string }',
      '      destino: { type: string, encrypted: true }',
    ),
  )
  const run = await cli.run(['serve'], { env: { MODULES_FILE: file, PORT: '0' } })
  t.equal(run.status, 1)
  t.match(
    run.stderr,
    /^records: modules\.yaml pide cambios que reescriben o quitan datos; revíselos con `records migrate --dry-run`/,
  )
  t.match(run.stderr, /Cifrar el campo 'personal\.destino'/)
})
