// D43 with `records copy`: an installation's evidence files move with it, SQLite -> PostgreSQL
// -> SQLite (SQLite -> SQLite -> SQLite when no PostgreSQL answers, said loudly): every file
// downloads on the target with the bytes uploaded on the source, `records files verify` and
// `records audit verify` pass there, the custody entries came along; a target holding files is
// refused, and a source file altered at rest stops the copy with nothing left on the target.
import { createHash, randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { openService, type OpenService } from '../../../src/app/service.js'
import { loadSettings } from '../../../src/app/settings.js'
import { ADMIN, REPO_MODULES, VALID } from '../../helpers/api.js'
import { createTestDatabase, requirePostgres, urlOf } from '../../helpers/postgres.js'
import { runRecords } from '../../helpers/records-cli.js'

const reachable = await requirePostgres(t, 'files are copied SQLite -> SQLite -> SQLite only')

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')
const KEY = randomBytes(32).toString('base64')
const big = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(700_000)]) // three sealed segments
const small = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(300)])

function folder(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'records-files-copy-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

const envOf = (dataDir: string, url: string): Record<string, string> => ({
  DATA_DIR: dataDir,
  DATABASE_URL: url,
  MODULES_FILE: REPO_MODULES,
  ADMIN_USERNAME: ADMIN.username,
  ADMIN_PASSWORD: ADMIN.password,
  RECORDS_ENCRYPTION_KEY: KEY,
  RECORDS_ENCRYPTION_OLD_KEYS: '',
  RATE_LIMIT_IP_PER_MINUTE: '100000',
  RATE_LIMIT_TOKEN_PER_HOUR: '100000',
})

/** The service on `env` (as `npm start` opens it) and an admin token; closed before returning. */
async function withService<T>(env: Record<string, string>, work: (s: OpenService, token: string) => Promise<T>) {
  const service = await openService(loadSettings(env))
  try {
    const login = await service.app.inject({ method: 'POST', url: '/api/auth/login', payload: ADMIN })
    return await work(service, login.json().data.token as string)
  } finally {
    await service.close()
  }
}

const download = (service: OpenService, token: string, id: string, n: number) =>
  service.app.inject({
    method: 'GET',
    url: `/api/denuncias/${id}/ficheros/pruebas/${n}`,
    headers: { authorization: `Bearer ${token}` },
  })

/** On the target: both files download as uploaded, with their custody entries; both verifications pass. */
async function checkTarget(t: Test, env: Record<string, string>, id: string) {
  await withService(env, async (service, token) => {
    const first = await download(service, token, id, 1)
    t.equal(first.statusCode, 200)
    t.equal(sha(first.rawPayload), sha(big), 'the large file, byte for byte')
    t.equal(first.rawPayload.length, big.length)
    const second = await download(service, token, id, 2)
    t.equal(second.statusCode, 200)
    t.ok(second.rawPayload.equals(small), 'the small file, byte for byte')
    const custody = await service.app.inject({
      method: 'GET',
      url: `/api/denuncias/${id}/ficheros/pruebas/1/custodia`,
      headers: { authorization: `Bearer ${token}` },
    })
    t.ok(
      custody.json().data.entries.some((e: { action: string }) => e.action === 'fichero_ingreso'),
      'the upload is in the custody chain on the target',
    )
  })
  const files = await runRecords(env, ['files', 'verify', '--json'])
  t.equal(files.status, 0, files.stdout + files.stderr)
  t.match(JSON.parse(files.stdout), { total: 2, altered: 0 })
  const audit = await runRecords(env, ['audit', 'verify'])
  t.equal(audit.status, 0, audit.stdout + audit.stderr)
}

t.test('records copy carries evidence files both ways, checked on the way', async (t) => {
  const dirA = folder(t)
  const envA = envOf(dirA, `sqlite:${join(dirA, 'records.db')}`)
  const id = await withService(envA, async (service, token) => {
    const created = await service.app.inject({
      method: 'POST',
      url: '/api/denuncias',
      headers: { authorization: `Bearer ${token}` },
      payload: VALID['denuncias']!(),
    })
    const id = String(created.json().data._id)
    for (const [body, type] of [
      [big, 'application/pdf'],
      [small, 'image/png'],
    ] as const) {
      const up = await service.app.inject({
        method: 'POST',
        url: `/api/denuncias/${id}/ficheros/pruebas`,
        headers: { authorization: `Bearer ${token}`, 'content-type': type, 'x-nombre': 'prueba' },
        payload: body,
      })
      t.equal(up.statusCode, 201, up.body)
    }
    return id
  })

  // SQLite -> PostgreSQL (or another SQLite).
  const dirB = folder(t)
  const urlB = reachable ? urlOf(await createTestDatabase()) : `sqlite:${join(dirB, 'records.db')}`
  const envB = envOf(dirB, urlB)
  const there = await runRecords(envA, ['copy', '--from', envA.DATABASE_URL!, '--to', urlB, '--json'])
  t.equal(there.status, 0, there.stderr)
  const report = JSON.parse(there.stdout)
  t.same(report.files, { count: 2, bytes: big.length + small.length })
  t.equal(report.tables['_files'], 2)
  await checkTarget(t, envB, id)

  // And back: PostgreSQL -> SQLite, the files into the target's DATA_DIR by default.
  const dirC = folder(t)
  const envC = envOf(dirC, `sqlite:${join(dirC, 'records.db')}`)
  const back = await runRecords(envB, ['copy', '--from', urlB, '--to', envC.DATABASE_URL!])
  t.equal(back.status, 0, back.stderr)
  t.match(back.stdout, /ficheros de prueba: 2 ficheros/)
  t.equal(readdirSync(join(dirC, 'ficheros', 'denuncias', id)).length, 2, 'both files in DATA_DIR/ficheros')
  await checkTarget(t, envC, id)

  // A second copy into a target whose DATA_DIR already holds files: refused, those left alone.
  const dirD = folder(t)
  const urlD = `sqlite:${join(dirD, 'records.db')}`
  const refused = await runRecords(envA, ['copy', '--from', envA.DATABASE_URL!, '--to', urlD, '--to-data-dir', dirC])
  t.equal(refused.status, 1)
  t.match(refused.stderr, /no está vacía \(la carpeta .*ficheros tiene ficheros\)/)
  t.equal(readdirSync(join(dirC, 'ficheros', 'denuncias', id)).length, 2)

  // A source file altered at rest: the copy stops, nothing stays on the target.
  const stored = join(dirA, 'ficheros', 'denuncias', id)
  const blob = readdirSync(stored)
    .map((name) => join(stored, name))
    .find((path) => readFileSync(path).length > 300_000)!
  const bytes = readFileSync(blob)
  bytes[300_000] = bytes[300_000]! ^ 1
  writeFileSync(blob, bytes)
  const altered = await runRecords(envA, ['copy', '--from', envA.DATABASE_URL!, '--to', urlD])
  t.equal(altered.status, 1)
  t.match(altered.stderr, new RegExp(`El fichero denuncias/${id}/pruebas/1 del origen no se puede leer .*segmento 1`))
  t.notOk(existsSync(join(dirD, 'ficheros')), 'no file left on the target')
  const retry = await runRecords(envC, ['audit', 'verify'])
  t.equal(retry.status, 0, 'the earlier target is untouched')
})
