// F12 with F1 (second outside audit): while the consultation log cannot be written, /health stays
// 200 no more: it answers 503 naming `auditoria` (D29), the log carries the database's real error,
// and once the writer can write again every entry is written and /health is 200. The writer is
// stopped for real: on SQLite its disk is filled (a small tmpfs, or where mounting is not allowed a
// file size limit on this process: test/helpers/fillable-disk.ts); on PostgreSQL the service runs
// as its own role and INSERT on `_audit` is revoked from it.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import t, { type Test } from 'tap'
import { ON_POSTGRES, startTestApi, VALID, type TestApi } from '../../helpers/api.js'
import { ADMIN_URL, databaseFor, urlOf } from '../../helpers/postgres.js'
import { fillableDisk } from '../../helpers/fillable-disk.js'
import { auditRows, captureLogs, eventually } from './support.js'

interface Breakable {
  readonly api: TestApi
  readonly logs: () => string
  breakWriter(): Promise<void>
  repairWriter(): Promise<void>
}

async function sqliteOnAFillableDisk(t: Test): Promise<Breakable> {
  const disk = fillableDisk(t)
  const logs = captureLogs()
  const api = await startTestApi(t, { dataDir: disk.dir, logger: { level: 'info', stream: logs.stream } })
  let free: (() => void) | undefined
  return {
    api,
    logs: logs.text,
    breakWriter: async () => void (free = disk.fill(api.service.database.location, process.pid)),
    repairWriter: async () => free?.(),
  }
}

async function postgresAsItsOwnRole(t: Test): Promise<Breakable> {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-health-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const name = await databaseFor(dataDir)
  const role = `${name}_svc`
  const admin = new pg.Client({ connectionString: urlOf(name) })
  await admin.connect()
  // The service's own role owns its database (and so the public schema), as a deployment would have it.
  await admin.query(`create role ${role} login`)
  await admin.query(`alter database ${name} owner to ${role}`)
  const url = new URL(ADMIN_URL)
  url.username = role
  url.pathname = `/${name}`
  const logs = captureLogs()
  const api = await startTestApi(t, {
    dataDir,
    env: { DATABASE_URL: url.toString() },
    logger: { level: 'info', stream: logs.stream },
  })
  t.teardown(async () => {
    await admin.query(`reassign owned by ${role} to current_user`)
    await admin.query(`drop owned by ${role}`)
    await admin.end()
    const server = new pg.Client({ connectionString: ADMIN_URL })
    await server.connect()
    await server.query(`drop role ${role}`).finally(() => server.end())
  })
  return {
    api,
    logs: logs.text,
    breakWriter: async () => void (await admin.query(`revoke insert on _audit from ${role}`)),
    repairWriter: async () => void (await admin.query(`grant insert on _audit to ${role}`)),
  }
}

t.test('F12, D29: /health is 503 while the consultation log cannot be written, 200 once it can', async (t) => {
  const setup = ON_POSTGRES ? await postgresAsItsOwnRole(t) : await sqliteOnAFillableDisk(t)
  const { api } = setup
  const denuncia = await api.create('denuncias', VALID['denuncias']!())
  const consulta = await api.userWithRole('consulta')
  const read = () => api.request('GET', `/denuncias/${denuncia._id}`, { token: consulta.token })
  const consultations = async () => (await auditRows(api)).filter((r) => r['action'] === 'consultar').length
  t.equal((await read()).status, 200)
  t.equal(await eventually(consultations, (n) => n === 1), 1, 'the first read is logged')
  t.equal((await api.request('GET', '/health')).status, 200)

  await setup.breakWriter()
  t.equal((await read()).status, 200, 'the read is served')
  const health = await eventually(
    () => api.request('GET', '/health'),
    (r) => r.status === 503,
  )
  t.equal(health.status, 503, 'the instance says it cannot log what it serves')
  t.match(health.body, {
    success: false,
    error: 'Servicio no disponible',
    details: [{ field: 'auditoria', message: /^La auditoría de consultas no se puede escribir desde .+: 1 entradas/ }],
  })
  const code = ON_POSTGRES ? /42501/ : /SQLITE_FULL|SQLITE_IOERR/
  t.match(health.body.details[0].message, code, 'the detail names the database error')
  const errorLines = setup
    .logs()
    .split('\n')
    .filter((l) => l.includes('no se pudo escribir la auditoría de lecturas'))
  t.ok(errorLines.length >= 1, 'the writer error is logged')
  t.match(errorLines[0], code, 'with the real error')
  t.notMatch(setup.logs(), /cannot rollback/, 'not a failed rollback instead of the error')

  await setup.repairWriter()
  const healed = await eventually(
    () => api.request('GET', '/health'),
    (r) => r.status === 200,
  )
  t.equal(healed.status, 200, 'healthy again once the writer can write')
  t.equal(await eventually(consultations, (n) => n === 2), 2, 'the read made during the fault is logged')
})
