// `npm start`'s entry point as a real process: it serves, prints how to log in, and stops
// cleanly on SIGTERM, finishing requests in flight (README "Health, logs, stopping"; D1, D3).
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { WITHOUT_TS_NODE } from '../../helpers/child-env.js'

const ROOT = new URL('../../../', import.meta.url).pathname

interface ServerProcess {
  readonly base: string
  readonly dataDir: string
  readonly exited: Promise<number | null>
  output(): string
  /** Waits (up to a minute) until the output matches. */
  until(pattern: RegExp): Promise<RegExpExecArray | null>
  signal(name: NodeJS.Signals): void
}

/** `src/app/server.ts` as a child process on a random port and its own DATA_DIR; undefined if it did not start. */
async function startServer(t: Test): Promise<ServerProcess | undefined> {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-process-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  // The test's own loader (process.execArgv) lets the child run the TypeScript source.
  const child = spawn(process.execPath, [...process.execArgv, join(ROOT, 'src/app/server.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...WITHOUT_TS_NODE,
      DATA_DIR: dataDir,
      PORT: '0',
      LOG_LEVEL: 'info',
      ADMIN_PASSWORD: 'process-password-1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  t.teardown(() => void child.kill('SIGKILL'))
  const until = async (pattern: RegExp) => {
    const deadline = Date.now() + 60_000
    while (!pattern.test(output) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    return pattern.exec(output)
  }
  const base = (await until(/Servicio disponible en (http:\/\/[^ ]+)/))?.[1]
  if (base === undefined) {
    t.fail(`the server did not start:\n${output}`)
    return undefined
  }
  return { base, dataDir, exited, output: () => output, until, signal: (name) => void child.kill(name) }
}

t.test('the server listens, logs where and how to log in, and exits 0 on SIGTERM', async (t) => {
  const server = await startServer(t)
  if (server === undefined) return
  const output = server.output()
  t.match(
    output,
    /Inicie sesión: .*curl -sS -X POST http:\/\/127\.0\.0\.1:\d+\/api\/auth\/login/,
    'prints how to log in',
  )
  t.notMatch(output, /process-password-1/, 'a configured ADMIN_PASSWORD is never printed')
  const health = await fetch(`${server.base}/health`)
  t.same(await health.json(), { success: true, data: { status: 'ok' } })

  server.signal('SIGTERM')
  t.equal(await server.exited, 0, 'exit status 0 after SIGTERM')
  t.match(server.output(), /deteniendo el servicio/)
})

t.test('SIGTERM: a request in flight finishes, new ones are refused, the database closes cleanly', async (t) => {
  const server = await startServer(t)
  if (server === undefined) return
  const { base, until } = server

  // A login whose body arrives in two halves: the server holds it open while the signal comes.
  const body = JSON.stringify({ username: 'admin', password: 'process-password-1' })
  const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
    const request = httpRequest(
      `${base}/auth/login`,
      { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (response) => {
        let text = ''
        response.on('data', (chunk: Buffer) => (text += chunk.toString()))
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }))
      },
    )
    request.on('error', reject)
    request.write(body.slice(0, 10))
    void until(/"msg":"deteniendo el servicio/).then(() => request.end(body.slice(10)))
  })
  await until(
    /"path":"\/api\/auth\/login".*"msg":"incoming request"|"msg":"incoming request".*"path":"\/api\/auth\/login"/,
  )
  server.signal('SIGTERM')
  await until(/"msg":"deteniendo el servicio/)
  const late = await fetch(`${base}/health`).then(
    (r) => r.status,
    () => 'refused',
  )
  t.ok(late === 'refused' || late === 503, `a new request after the signal is refused (${late})`)

  const finished = await answer
  t.equal(finished.status, 200, 'the login in flight completed')
  t.match(JSON.parse(finished.text), { success: true, data: { token: String } })
  t.equal(await server.exited, 0, 'exit status 0')
  t.match(server.output(), /servicio detenido: base de datos cerrada/)
  const wal = join(server.dataDir, 'records.db-wal')
  t.ok(!existsSync(wal) || statSync(wal).size === 0, 'the WAL was checkpointed: the database closed cleanly')
})
