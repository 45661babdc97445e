// `npm start`'s entry point as a real process: it serves, prints how to log in, and stops
// cleanly on SIGTERM (README "Health, logs, stopping"; D1, D3).
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'

const ROOT = new URL('../../../', import.meta.url).pathname

t.test('the server listens, logs where and how to log in, and exits 0 on SIGTERM', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-process-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  // The test's own loader (process.execArgv) lets the child run the TypeScript source.
  const child = spawn(process.execPath, [...process.execArgv, join(ROOT, 'src/server.ts')], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info', ADMIN_PASSWORD: 'process-password-1' },
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
  t.match(output, /Inicie sesión: curl -X POST http:\/\/127\.0\.0\.1:\d+\/api\/auth\/login/, 'prints how to log in')
  t.notMatch(output, /process-password-1/, 'a configured ADMIN_PASSWORD is never printed')
  const health = await fetch(`${base}/health`)
  t.same(await health.json(), { success: true, data: { status: 'ok' } })

  child.kill('SIGTERM')
  t.equal(await exited, 0, 'exit status 0 after SIGTERM')
  t.match(output, /deteniendo el servicio/)
})
