// `npm start`'s entry point as a real process: it serves, prints how to log in, and stops
// cleanly on SIGTERM, finishing requests in flight (README "Health, logs, stopping"; D1, D3).
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { startServerProcess, type ServerProcess } from '../../helpers/server-process.js'

/** `src/app/server.ts` as a child process on a random port and its own DATA_DIR. */
async function startServer(t: Test): Promise<ServerProcess & { readonly dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-process-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const server = await startServerProcess(t, { env: { DATA_DIR: dataDir, ADMIN_PASSWORD: 'process-password-1' } })
  return { ...server, dataDir }
}

t.test('the server listens, logs where and how to log in, and exits 0 on SIGTERM', async (t) => {
  const server = await startServer(t)
  const output = server.output()
  t.match(
    output,
    /Inicie sesión: .*curl -sS -X POST http:\/\/127\.0\.0\.1:\d+\/api\/auth\/login/,
    'prints how to log in',
  )
  t.notMatch(output, /process-password-1/, 'a configured ADMIN_PASSWORD is never printed')
  const health = await fetch(`${server.base}/health`)
  t.same(await health.json(), { success: true, data: { status: 'ok' } })

  t.equal(await server.stop(), 0, 'exit status 0 after SIGTERM')
  t.match(server.output(), /deteniendo el servicio/)
})

t.test('SIGTERM: a request in flight finishes, new ones are refused, the database closes cleanly', async (t) => {
  const server = await startServer(t)
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
  server.child.kill('SIGTERM')
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
