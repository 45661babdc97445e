// `npm start`'s entry point as a real process: it serves, prints how to log in, and stops
// cleanly on SIGTERM (README "Health, logs, stopping"; D1, D3).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { startServerProcess } from '../../helpers/server-process.js'

t.test('the server listens, logs where and how to log in, and exits 0 on SIGTERM', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-process-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const server = await startServerProcess(t, { DATA_DIR: dataDir, ADMIN_PASSWORD: 'process-password-1' })
  const { base } = server
  t.match(server.output(), /Inicie sesión: curl -X POST http:\/\/127\.0\.0\.1:\d+\/api\/auth\/login/, 'prints how to log in')
  t.notMatch(server.output(), /process-password-1/, 'a configured ADMIN_PASSWORD is never printed')
  const health = await fetch(`${base}/health`)
  t.same(await health.json(), { success: true, data: { status: 'ok' } })

  t.equal(await server.stop(), 0, 'exit status 0 after SIGTERM')
  t.match(server.output(), /deteniendo el servicio/)
})
