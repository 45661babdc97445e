// `records serve` is the service (what `npm start` runs): it listens, answers, and stops on
// SIGTERM with status 0; a refused migration stops it with status 1 and the reason (issue #4).
import { spawn } from 'node:child_process'
import { writeFileSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { REPO_MODULES } from '../../helpers/api.js'
import { BIN, createCli } from './support.js'

t.test('records serve listens and exits 0 on SIGTERM', async (t) => {
  const cli = createCli(t)
  const child = spawn(process.execPath, [BIN, 'serve'], {
    cwd: cli.dataDir,
    env: { ...process.env, ...cli.env, PORT: '0', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  t.teardown(() => void child.kill('SIGKILL'))
  const deadline = Date.now() + 60_000
  let base: string | undefined
  while (base === undefined && Date.now() < deadline) {
    base = /Servicio disponible en (http:\/\/[^ ]+)/.exec(output)?.[1]
    if (base === undefined) await new Promise((r) => setTimeout(r, 100))
  }
  if (base === undefined) return t.fail(`the server did not start:\n${output}`)
  t.same(await (await fetch(`${base}/health`)).json(), { success: true, data: { status: 'ok' } })
  child.kill('SIGTERM')
  t.equal(await exited, 0)
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
