// D41: GET /interesados?valor= finds a person's identifier in every module's encrypted fields
// (module, id, field), under the caller's record scope and field rules, deleted records included;
// it needs interesados.ver and X-Motivo, logs each record returned as a consultation (D29) and
// keeps the identifier in clear nowhere: not in the database, DATA_DIR or the logs. Both databases.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import t, { type Test } from 'tap'
import { createFieldCipher, createKeyring } from '../../../src/db/crypto.js'
import { rotateEncryption } from '../../../src/db/keys/rotation.js'
import { ON_POSTGRES, REPO_MODULES, startTestApi, VALID, type Reply, type TestApi } from '../../helpers/api.js'
import {
  auditRows,
  captureLogs,
  eventually,
  filesUnder,
  markerForms,
  newKey,
  storedText,
} from '../protection/support.js'

const DNI = '48151623Q'
const OTHER_DNI = '00000001R'
const MOTIVO = 'Solicitud de acceso del interesado, registro de entrada 2026/123'
const withMotivo = { 'x-motivo': encodeURIComponent(MOTIVO) }

const AGENTE_PERMISSIONS = '  agente:\n    description: Operaciones básicas en su ámbito.\n    permissions:\n'
const DENUNCIAS_AGENTE_RULE = '        cannot_write: [agente_asignado]\n'

/**
 * The shipped file with agente also holding interesados.ver, and not reading denunciante_telefono
 * in denuncias (a field rule, D27): to show that scopes and field rules apply.
 */
function modulesWithScopedSearcher(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'records-interesados-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const shipped = readFileSync(REPO_MODULES, 'utf8')
  if (!shipped.includes(AGENTE_PERMISSIONS) || !shipped.includes(DENUNCIAS_AGENTE_RULE))
    throw new Error('the agente role or its denuncias rule moved in modules.yaml')
  const file = join(dir, 'modules.yaml')
  writeFileSync(
    file,
    shipped
      .replace(AGENTE_PERMISSIONS, `${AGENTE_PERMISSIONS}      - interesados.ver\n`)
      .replace(DENUNCIAS_AGENTE_RULE, `${DENUNCIAS_AGENTE_RULE}        cannot_read: [denunciante_telefono]\n`),
  )
  return file
}

const error = (reply: Reply) => ({ status: reply.status, success: reply.body.success, error: reply.body.error })

interface Match {
  readonly module: string
  readonly id: string
  readonly field: string
  readonly deleted: boolean
}

const search = (api: TestApi, token: string, query: string, headers: Record<string, string> = withMotivo) =>
  api.request('GET', `/interesados${query}`, { token, headers })

/** A JSON column as SQLite (text) or PostgreSQL (parsed) hands it over. */
const json = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : value)

const consultations = async (api: TestApi, userId: string) =>
  (await auditRows(api)).filter((r) => r['user_id'] === userId && r['action'] === 'consultar')

t.test('D41: GET /interesados across modules and fields, scopes, refusals and its consultations', async (t) => {
  const logs = captureLogs()
  const api = await startTestApi(t, {
    env: { MODULES_FILE: modulesWithScopedSearcher(t) },
    logger: { level: 'debug', stream: logs.stream },
  })
  const admin = await api.adminToken()
  const staffA = await api.create('personal', VALID['personal']!())
  const staffB = await api.create('personal', VALID['personal']!())
  const dpd = await api.userWithRole('dpd')
  const agente = await api.userWithRole('agente', { personal_id: staffA._id })
  const consulta = await api.userWithRole('consulta')
  // Both fields of one denuncia hold it; another denuncia, outside the agente's scope; a deleted one.
  const mine = await api.create('denuncias', {
    ...VALID['denuncias']!(),
    agente_asignado: staffA._id,
    denunciante_dni: DNI,
    denunciante_telefono: DNI,
  })
  const theirs = await api.create('denuncias', {
    ...VALID['denuncias']!(),
    agente_asignado: staffB._id,
    denunciante_dni: DNI,
  })
  const gone = await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: DNI })
  t.equal((await api.request('DELETE', `/denuncias/${gone._id}`, { token: admin })).status, 200)
  const sancion = await api.create('sanciones', {
    ...VALID['sanciones']!(),
    agente_denunciante: staffB._id,
    infractor_dni: DNI,
  })
  const staff = await api.create('personal', { ...VALID['personal']!(), nif: DNI })
  const stranger = await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: OTHER_DNI })

  const everything: Match[] = [
    { module: 'denuncias', id: mine._id, field: 'denunciante_dni', deleted: false },
    { module: 'denuncias', id: mine._id, field: 'denunciante_telefono', deleted: false },
    { module: 'denuncias', id: theirs._id, field: 'denunciante_dni', deleted: false },
    { module: 'denuncias', id: gone._id, field: 'denunciante_dni', deleted: true },
    { module: 'sanciones', id: sancion._id, field: 'infractor_dni', deleted: false },
    { module: 'personal', id: staff._id, field: 'nif', deleted: false },
  ]

  t.test('the dpd finds every field of every record holding it, deleted ones marked, nothing else', async (t) => {
    const reply = await search(api, dpd.token, `?valor=${DNI}`)
    t.equal(reply.status, 200)
    t.same(reply.body, { success: true, data: { entries: everything, total: 6, limit: 100, offset: 0 } })
    t.notOk(JSON.stringify(reply.body).includes(stranger._id), 'a record holding another identifier')
    t.notOk(JSON.stringify(reply.body).includes(DNI), 'the answer shows no value')
    const page = await search(api, dpd.token, `?valor=${DNI}&limit=2&offset=2`)
    t.same(page.body.data, { entries: everything.slice(2, 4), total: 6, limit: 2, offset: 2 }, 'paged as lists are')
    t.same((await search(api, dpd.token, `?valor=${DNI.toLowerCase()}`)).body.data.entries, [], 'exact, as D16 filters')
    const administrador = await api.userWithRole('administrador')
    t.same((await search(api, administrador.token, `?valor=${DNI}`)).body.data.total, 6, 'administrador holds it too')
  })

  t.test('the caller record scope (D26) and field rules (D27) apply', async (t) => {
    const reply = await search(api, agente.token, `?valor=${DNI}`)
    t.equal(reply.status, 200)
    t.same(reply.body.data.entries, [
      { module: 'denuncias', id: mine._id, field: 'denunciante_dni', deleted: false },
      { module: 'personal', id: staff._id, field: 'nif', deleted: false },
    ])
    t.equal(reply.body.data.total, 2)
  })

  t.test('refusals: 401, 403 without interesados.ver, 400 without motivo or valor; none is logged', async (t) => {
    // A data protection officer of their own: entries of the other tests may still be on their way.
    const { token, id } = await api.userWithRole('dpd')
    t.equal((await api.request('GET', `/interesados?valor=${DNI}`, { headers: withMotivo })).status, 401)
    t.same(error(await search(api, consulta.token, `?valor=${DNI}`)), {
      status: 403,
      success: false,
      error: 'Sin permisos para esta operación',
    })
    const noMotivo = await search(api, token, `?valor=${DNI}`, {})
    t.same(error(noMotivo), {
      status: 400,
      success: false,
      error: 'Indique el motivo de la consulta en la cabecera X-Motivo',
    })
    t.equal(noMotivo.body.details[0].field, 'X-Motivo')
    t.equal((await search(api, token, `?valor=${DNI}`, { 'x-motivo': '   ' })).status, 400, 'a blank motivo')
    const naming = await search(api, token, `?valor=${DNI}`, { 'x-motivo': `Solicitud de ${DNI.toLowerCase()}` })
    t.same(error(naming), {
      status: 400,
      success: false,
      error: 'Datos inválidos: El motivo no puede incluir el identificador buscado: se guarda en claro en la auditoría',
    })
    for (const query of ['', '?valor=', '?valor=%20%20', '?limit=5']) {
      const reply = await search(api, token, query)
      t.same(error(reply), { status: 400, success: false, error: 'Datos requeridos' }, `valor missing: '${query}'`)
      t.ok(reply.body.details.some((d: { field: string }) => d.field === 'valor'))
    }
    const twice = await search(api, token, `?valor=${DNI}&valor=${DNI}`)
    t.equal(twice.status, 400, 'valor twice')
    const unknown = await search(api, token, `?valor=${DNI}&modulo=denuncias`)
    t.same(error(unknown), {
      status: 400,
      success: false,
      error: "Datos inválidos: Parámetro desconocido 'modulo': use valor, limit, offset",
    })
    t.equal((await search(api, token, `?valor=${DNI}&limit=0`)).status, 400, 'limit below 1')
    for (const reply of [noMotivo, naming, twice, unknown]) t.notOk(JSON.stringify(reply.body).includes(DNI), 'no echo')
    await new Promise((resolve) => setTimeout(resolve, 200))
    t.same(await consultations(api, id), [], 'no entry for a refused request')
    t.same(await consultations(api, consulta.id), [], 'nor for a forbidden one')
  })

  t.test('each record returned is one consultation entry: who, when, why, which fields, no value', async (t) => {
    const { token, id: me } = await api.userWithRole('dpd')
    await search(api, token, `?valor=${DNI}`, { ...withMotivo, 'x-request-id': 'interesados-1' })
    const rows = await eventually(
      () => consultations(api, me),
      (r) => r.length >= 5,
    )
    const seen = rows.map((r) => [r['module'], r['record_id'], json(r['fields'])])
    t.same(seen, [
      ['denuncias', mine._id, ['denunciante_dni', 'denunciante_telefono']],
      ['denuncias', theirs._id, ['denunciante_dni']],
      ['denuncias', gone._id, ['denunciante_dni']],
      ['sanciones', sancion._id, ['infractor_dni']],
      ['personal', staff._id, ['nif']],
    ])
    for (const row of rows) {
      t.equal(row['motivo'], MOTIVO)
      t.equal(row['request_id'], 'interesados-1')
      t.match(String(row['at']), /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/)
      t.match(json(row['criteria']), { valor: { indice_ciego: [String] } })
    }
    // The record's history shows the lookup to those who read the audit trail (F2).
    const history = await api.request('GET', `/denuncias/${mine._id}/historial`, { token: admin })
    t.ok(
      history.body.data.entries.some(
        (e: Record<string, unknown>) => e['action'] === 'consultar' && e['user_id'] === me && e['motivo'] === MOTIVO,
      ),
      'in the history of the record',
    )
    // A search that finds nothing is a consultation all the same: one entry without a record.
    await search(api, token, '?valor=99999999Z')
    const empty = await eventually(
      () => consultations(api, me),
      (r) => r.length >= 6,
    )
    t.match(empty.at(-1), { module: null, record_id: null, motivo: MOTIVO })
    // The data protection officer's own trail finds these lookups by the identifier (D34).
    const trail = await api.request('GET', `/auditoria?dni=${DNI}&usuario=${me}`, { token: admin })
    t.equal(trail.status, 200)
    t.equal(trail.body.data.total, 5, 'GET /auditoria?dni= lists each of them')
  })

  t.test('the identifier is nowhere in clear: database, DATA_DIR, logs', async (t) => {
    // The consultation entries are written by then.
    await eventually(
      async () => (await auditRows(api)).length,
      (n) => n > 0,
    )
    await api.service.app.inject({ method: 'GET', url: `/interesados?valor=${DNI}` })
    t.notOk((await storedText(api)).includes(DNI), 'no table holds it in clear')
    if (!ON_POSTGRES)
      for (const { path, bytes } of filesUnder(api.dataDir))
        for (const form of markerForms(DNI)) t.notOk(bytes.includes(form), `not in ${path}`)
    const text = logs.text()
    t.ok(text.includes('/interesados'), 'the requests are logged')
    t.notOk(text.includes(DNI), 'but never the identifier')
    t.notOk(text.includes(encodeURIComponent(DNI)), 'not even encoded')
  })
})

t.test('D41: a value indexed under an older key is found; the search hashes under every key', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-interesados-keys-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const oldKey = newKey()
  const key = newKey()
  const first = await startTestApi(t, { dataDir, env: { RECORDS_ENCRYPTION_KEY: oldKey } })
  const before = await first.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: DNI })
  await first.service.close()

  const api = await startTestApi(t, {
    dataDir,
    env: { RECORDS_ENCRYPTION_KEY: key, RECORDS_ENCRYPTION_OLD_KEYS: oldKey },
  })
  await rotateEncryption({
    database: api.service.database,
    spec: api.service.spec,
    codec: api.service.codec,
    recordKeys: api.service.recordKeys,
    factors: api.service.factors,
    changes: api.service.changes,
    activeKeyId: api.service.keys.targetId,
    timezone: api.service.spec.service.timezone,
    clock: () => new Date(),
  })
  const after = await api.create('sanciones', { ...VALID['sanciones']!(), infractor_dni: DNI })
  // The denuncia as a row the rotation has not reached yet: its blind index still under the old key.
  const oldIndex = createFieldCipher(createKeyring([Buffer.from(oldKey, 'base64')])).blindIndex(DNI)
  const newIndex = createFieldCipher(createKeyring([Buffer.from(key, 'base64')])).blindIndex(DNI)
  t.not(oldIndex, newIndex)
  const table = (module: string) => sql.table(api.service.spec.moduleByName.get(module)!.table.name)
  const { db } = api.service.database
  await sql`update ${table('denuncias')} set _bidx_denunciante_dni = ${oldIndex} where _id = ${before._id}`.execute(db)
  const stored = await sql<{
    bidx: string
  }>`select _bidx_infractor_dni as bidx from ${table('sanciones')} where _id = ${after._id}`.execute(db)
  t.equal(stored.rows[0]?.bidx, newIndex, 'a new value is indexed under the new key')

  const dpd = await api.userWithRole('dpd')
  const reply = await search(api, dpd.token, `?valor=${DNI}`)
  t.equal(reply.status, 200)
  t.same(reply.body.data.entries, [
    { module: 'denuncias', id: before._id, field: 'denunciante_dni', deleted: false },
    { module: 'sanciones', id: after._id, field: 'infractor_dni', deleted: false },
  ])
})

t.test('D41: a blocked record is still found: blocking restricts its use, its values are still held', async (t) => {
  const api = await startTestApi(t)
  const dpd = await api.userWithRole('dpd')
  const blocked = await api.create('sanciones', { ...VALID['sanciones']!(), infractor_dni: DNI })
  const decision = await api.request('POST', `/retencion/sanciones/${blocked._id}`, {
    token: dpd.token,
    body: { decision: 'bloquear', motivo: 'Exactitud impugnada por el interesado' },
  })
  t.equal(decision.status, 200)
  const admin = await api.adminToken()
  t.equal((await api.request('GET', `/sanciones/${blocked._id}`, { token: admin })).status, 403, 'blocked for reads')
  const reply = await search(api, dpd.token, `?valor=${DNI}`)
  t.equal(reply.status, 200)
  t.same(reply.body.data.entries, [{ module: 'sanciones', id: blocked._id, field: 'infractor_dni', deleted: false }])
})
