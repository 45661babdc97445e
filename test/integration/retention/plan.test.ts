// D41: `records retention plan [--json]` lists what is due and what on_expiry would do, from the
// TypeScript source against the same database as a running service. Both databases.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { ADMIN, databaseEnv, REPO_MODULES, startTestApi, VALID } from '../../helpers/api.js'
import { runRecords } from '../../helpers/records-cli.js'

const SANCIONES_KEEP = '      keep_at_most: 5y\n'

t.test('D41: retention plan: due records, their reason and the action on_expiry would take', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'records-retention-plan-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const shipped = readFileSync(REPO_MODULES, 'utf8')
  t.ok(shipped.includes(SANCIONES_KEEP), 'sanciones keeps at most 5 years in the shipped file')
  const modulesFile = join(dir, 'modules.yaml')
  // sanciones erase past their longest keep; sala092 keeps the shipped `review`.
  writeFileSync(modulesFile, shipped.replace(SANCIONES_KEEP, `${SANCIONES_KEEP}      on_expiry: erase\n`))
  const api = await startTestApi(t, { env: { MODULES_FILE: modulesFile } })
  const fine = await api.create('sanciones', { ...VALID['sanciones']!(), fecha_infraccion: '2019-01-01 00:00:00' })
  const call = await api.create('sala092', { ...VALID['sala092']!(), fecha_hora_entrada: '2020-05-01 12:00:00' })
  const recent = await api.create('sala092', VALID['sala092']!())
  await api.create('denuncias', VALID['denuncias']!())
  const env = {
    DATA_DIR: api.dataDir,
    MODULES_FILE: modulesFile,
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
    RECORDS_ENCRYPTION_KEY: '',
    RECORDS_ENCRYPTION_OLD_KEYS: '',
    ...(await databaseEnv(api.dataDir)),
  }

  const json = await runRecords(env, ['retention', 'plan', '--json'])
  t.equal(json.status, 0, json.stderr)
  const plan = JSON.parse(json.stdout)
  const byModule = (name: string) => plan.modules.find((m: { module: string }) => m.module === name)
  t.same(
    plan.modules.map((m: { module: string }) => m.module),
    ['denuncias', 'sanciones', 'atestados', 'personal', 'sala092', 'turnos', 'usuarios'],
  )
  t.same(byModule('sanciones'), {
    module: 'sanciones',
    retention: {
      basis: 'Ley 39/2015 y Ley 40/2015 (procedimiento sancionador); prescripción de la sanción',
      from: 'fecha_infraccion',
      review_every: '1y',
      keep_at_most: '5y',
      on_expiry: 'erase',
    },
    due: [{ id: fine._id, due_since: '2024-01-01 00:00:00', reason: 'plazo_maximo', action: 'suprimir' }],
  })
  t.same(byModule('sala092').due, [
    { id: call._id, due_since: '2023-05-01 12:00:00', reason: 'plazo_maximo', action: 'revisar' },
  ])
  t.notOk(JSON.stringify(plan).includes(recent._id), 'a recent call is not due')
  t.same(byModule('denuncias').due, [], 'a denuncia of today is not due')
  t.equal(plan.total, 2)

  const text = await runRecords(env, ['retention', 'plan'])
  t.equal(text.status, 0, text.stderr)
  t.match(text.stdout, /^Conservación a \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}: 2 registros vencidos\n/)
  t.match(text.stdout, `${fine._id}  vencido desde 2024-01-01 00:00:00 (plazo_maximo): se suprimiría`)
  t.match(text.stdout, `${call._id}  vencido desde 2023-05-01 12:00:00 (plazo_maximo): revisión por una persona`)
  t.match(
    text.stdout,
    'sanciones: 1 vencido\n  Conservación (D41): desde el campo fecha_infraccion, revisión cada 1 año',
  )
  t.equal((await runRecords(env, ['retention', 'plan', 'extra'])).status, 2, 'no positional arguments')
})
