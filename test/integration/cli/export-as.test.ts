// F11 (second outside audit): `records export --as <usuario>` exports exactly what that user
// gets through the API: nothing without `{module}.ver`, their scope, no field they cannot read,
// encrypted values masked, and `--decrypt` refused unless they hold `{module}.descifrar`;
// deleted records absent; the one 'comunicar' entry names them. The real command line next to
// a service, on SQLite and PostgreSQL.
import t from 'tap'
import { ADMIN, databaseEnv, REPO_MODULES, startTestApi, VALID, type TestApi } from '../../helpers/api.js'
import { runRecords } from '../../helpers/records-cli.js'

const DISCLOSURE = ['--destinatario', 'Juzgado de Instrucción n.º 2', '--motivo', 'Diligencias previas 123/2026']

async function exportAs(api: TestApi, args: readonly string[]) {
  const env = {
    DATA_DIR: api.dataDir,
    MODULES_FILE: REPO_MODULES,
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
    RECORDS_ENCRYPTION_KEY: '',
    RECORDS_ENCRYPTION_OLD_KEYS: '',
    ...(await databaseEnv(api.dataDir)),
  }
  const run = await runRecords(env, ['export', ...DISCLOSURE, '--format', 'jsonl', ...args])
  const records = run.stdout
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
  return { ...run, records }
}

t.test('F11: export --as gives exactly the API view of that user, and --decrypt only what they may read', async (t) => {
  const api = await startTestApi(t)
  const admin = await api.adminToken()
  const agente = await api.userWithRole('agente', { personal_id: 'PER-2026-00011' })
  const consulta = await api.userWithRole('consulta')
  await api.seedTargets({ agente_asignado: 'PER-2026-00012' }, 'denuncias')
  const mine = await api.create('denuncias', {
    ...VALID['denuncias']!(),
    agente_asignado: 'PER-2026-00011',
    denunciante_dni: '11111111A',
    observaciones: 'Nota interna',
  })
  const theirs = await api.create('denuncias', { ...VALID['denuncias']!(), agente_asignado: 'PER-2026-00012' })
  const gone = await api.create('denuncias', { ...VALID['denuncias']!(), agente_asignado: 'PER-2026-00011' })
  t.equal((await api.request('DELETE', `/denuncias/${gone._id}`, { token: admin })).status, 200)

  // The API view of each, to compare with.
  const viaApi = async (token: string) =>
    ((await api.request('GET', '/denuncias?limit=100', { token })).body.data.records as Record<string, unknown>[]).map(
      (r) => r['_id'],
    )

  const asAgente = await exportAs(api, ['denuncias', '--as', agente.username, '--decrypt'])
  t.equal(asAgente.status, 0, asAgente.stderr)
  t.same(
    asAgente.records.map((r) => r['_id']),
    await viaApi(agente.token),
    'the records the API lists to them',
  )
  t.same(
    asAgente.records.map((r) => r['_id']),
    [mine._id],
    'their scope only, no deleted record',
  )
  t.equal(asAgente.records[0]?.['denunciante_dni'], '11111111A', 'agente holds denuncias.descifrar')

  const refused = await exportAs(api, ['denuncias', '--as', consulta.username, '--decrypt'])
  t.equal(refused.status, 1, 'consulta holds no denuncias.descifrar: --decrypt is refused')
  t.match(refused.stderr, /--decrypt con --as: .*no tiene el permiso 'denuncias.descifrar'/)
  t.equal(refused.stdout, '', 'nothing exported')

  const asConsulta = await exportAs(api, ['denuncias', '--as', consulta.username])
  t.equal(asConsulta.status, 0, asConsulta.stderr)
  t.same(asConsulta.records.map((r) => r['_id']).sort(), [mine._id, theirs._id].sort())
  const own = asConsulta.records.find((r) => r['_id'] === mine._id)
  t.equal(own?.['denunciante_dni'], '***', 'masked as their API shows it')
  t.notOk(own !== undefined && 'observaciones' in own, 'a field they cannot read is absent')

  const noModule = await exportAs(api, ['personal', '--as', agente.username])
  t.equal(noModule.status, 1, 'agente holds no personal.ver')
  t.match(noModule.stderr, /no tiene el permiso 'personal.ver'/)
  t.equal(noModule.stdout, '')
  t.equal((await api.request('GET', '/personal', { token: agente.token })).status, 403, 'as the API refuses them')

  const entries = (await api.request('GET', '/auditoria?accion=comunicar&limit=100', { token: admin })).body.data
    .entries as Record<string, any>[]
  t.equal(entries.length, 2, 'one comunicar entry per export made; the refused ones left none')
  t.match(entries, [
    { user_id: /^cli:/, criteria: { como: agente.username, como_id: agente.id, como_rol: 'agente', descifrado: true } },
    { user_id: /^cli:/, criteria: { como: consulta.username, como_id: consulta.id, descifrado: false } },
  ])
})
