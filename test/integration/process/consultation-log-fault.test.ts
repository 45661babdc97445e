// F12 (second outside audit), as a real process on an embedded SQLite file: with its data directory
// full, /health stops saying 200, the log names the real error (SQLITE_FULL, not "cannot rollback"),
// and SIGTERM ends the process with an exit code and a logged error saying how many consultations
// could not be written: not SIGBUS. The data directory's disk is filled for real: a 16 MB tmpfs, or
// where mounting is not allowed a file size limit on the server process
// (test/helpers/fillable-disk.ts). SQLite only: on PostgreSQL the files are the server's.
import { join } from 'node:path'
import t from 'tap'
import { ON_POSTGRES } from '../../helpers/api.js'
import { fillableDisk, IGNORE_SIGXFSZ } from '../../helpers/fillable-disk.js'
import { startServerProcess } from '../../helpers/server-process.js'

const PASSWORD = 'fault-password-1'

t.test('F12: a full data directory: /health 503, the real error logged, SIGTERM exits cleanly', async (t) => {
  if (ON_POSTGRES) return void t.comment('SQLite only: the PostgreSQL half is consultation-log-health.test.ts')
  const disk = fillableDisk(t)
  const dataDir = disk.dir
  const server = await startServerProcess(t, {
    nodeArgs: IGNORE_SIGXFSZ,
    env: { DATA_DIR: dataDir, ADMIN_PASSWORD: PASSWORD },
  })
  const { base, until } = server
  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: PASSWORD }),
  })
  const token = ((await login.json()) as { data: { token: string } }).data.token
  const read = () => fetch(`${base}/denuncias`, { headers: { authorization: `Bearer ${token}` } })
  t.equal((await read()).status, 200)
  t.equal((await fetch(`${base}/health`)).status, 200)

  disk.fill(join(dataDir, 'records.db'), server.child.pid!)
  for (let i = 0; i < 5; i++) t.equal((await read()).status, 200, 'reads are served')
  let health = 0
  for (const deadline = Date.now() + 30_000; health !== 503 && Date.now() < deadline;)
    health = (await fetch(`${base}/health`)).status
  t.equal(health, 503, '/health says the instance cannot log what it serves')
  // The log line comes through a pipe: it may arrive after the 503 does.
  await until(/no se pudo escribir la auditoría de lecturas/)
  const writerError = server
    .output()
    .split('\n')
    .find((l) => l.includes('no se pudo escribir la auditoría de lecturas'))
  // ENOSPC on the tmpfs is SQLITE_FULL; EFBIG past a file size limit is SQLITE_IOERR_WRITE.
  const realError = disk.kind === 'tmpfs' ? /"code":"SQLITE_FULL"/ : /"code":"SQLITE_IOERR_WRITE"/
  t.match(writerError, realError, 'the real error is logged')
  t.notMatch(server.output(), /cannot rollback/)

  const code = await server.stop()
  t.equal(server.child.signalCode, null, 'not killed by a signal (SIGBUS)')
  t.equal(code, 1, 'a failed stop')
  const lost = /servicio detenido, pero (\d+) consultas no constan en la auditoría/.exec(server.output())
  t.ok(Number(lost?.[1]) >= 5, 'the lost entries are counted in a logged error')
})
