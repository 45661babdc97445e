// F12 (second outside audit), as a real process on an embedded SQLite file: with its data directory
// full, /health stops saying 200, the log names the real error (SQLITE_FULL, not "cannot rollback"),
// and SIGTERM ends the process with an exit code and a logged error saying how many consultations
// could not be written: not SIGBUS. The data directory's disk is filled for real: a 16 MB tmpfs, or
// where mounting is not allowed a file size limit on the server process
// (test/helpers/fillable-disk.ts). SQLite only: on PostgreSQL the files are the server's.
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import t from 'tap'
import { ON_POSTGRES } from '../../helpers/api.js'
import { fillableDisk, IGNORE_SIGXFSZ } from '../../helpers/fillable-disk.js'
import { WITHOUT_TS_NODE } from '../../helpers/child-env.js'

const ROOT = new URL('../../../', import.meta.url).pathname
const PASSWORD = 'fault-password-1'

t.test('F12: a full data directory: /health 503, the real error logged, SIGTERM exits cleanly', async (t) => {
  if (ON_POSTGRES) return void t.comment('SQLite only: the PostgreSQL half is consultation-log-health.test.ts')
  const disk = fillableDisk(t)
  const dataDir = disk.dir
  const node = [...IGNORE_SIGXFSZ, ...process.execArgv]
  const child = spawn(process.execPath, [...node, join(ROOT, 'src/app/server.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...WITHOUT_TS_NODE,
      DATA_DIR: dataDir,
      PORT: '0',
      LOG_LEVEL: 'info',
      ADMIN_PASSWORD: PASSWORD,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  )
  t.teardown(() => void child.kill('SIGKILL'))
  const until = async (pattern: RegExp) => {
    const deadline = Date.now() + 60_000
    while (!pattern.test(output) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    return pattern.exec(output)
  }
  const base = (await until(/Servicio disponible en (http:\/\/[^ "]+)/))?.[1]
  if (base === undefined) return void t.fail(`the server did not start:\n${output}`)
  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: PASSWORD }),
  })
  const token = ((await login.json()) as { data: { token: string } }).data.token
  const read = () => fetch(`${base}/denuncias`, { headers: { authorization: `Bearer ${token}` } })
  t.equal((await read()).status, 200)
  t.equal((await fetch(`${base}/health`)).status, 200)

  disk.fill(join(dataDir, 'records.db'), child.pid!)
  for (let i = 0; i < 5; i++) t.equal((await read()).status, 200, 'reads are served')
  let health = 0
  for (const deadline = Date.now() + 30_000; health !== 503 && Date.now() < deadline;)
    health = (await fetch(`${base}/health`)).status
  t.equal(health, 503, '/health says the instance cannot log what it serves')
  // The log line comes through a pipe: it may arrive after the 503 does.
  await until(/no se pudo escribir la auditoría de lecturas/)
  const writerError = output.split('\n').find((l) => l.includes('no se pudo escribir la auditoría de lecturas'))
  // ENOSPC on the tmpfs is SQLITE_FULL; EFBIG past a file size limit is SQLITE_IOERR_WRITE.
  const realError = disk.kind === 'tmpfs' ? /"code":"SQLITE_FULL"/ : /"code":"SQLITE_IOERR_WRITE"/
  t.match(writerError, realError, 'the real error is logged')
  t.notMatch(output, /cannot rollback/)

  child.kill('SIGTERM')
  const { code, signal } = await exited
  t.equal(signal, null, 'not killed by a signal (SIGBUS)')
  t.equal(code, 1, 'a failed stop')
  const lost = /servicio detenido, pero (\d+) consultas no constan en la auditoría/.exec(output)
  t.ok(Number(lost?.[1]) >= 5, 'the lost entries are counted in a logged error')
})
