// D33: every write keeps the version it makes in `_versions` (encrypted values
// as ciphertext); /historial shows each write's old and new values and `?version=N` the record as
// it was, both under the record's own scope, field rules and masking, both logged as a GET is.
import { sql } from 'kysely'
import t from 'tap'
import { keyIdOf } from '../../../src/db/crypto.js'
import { keyUsage } from '../../../src/db/keys/usage.js'
import { rotateEncryption } from '../../../src/db/keys/rotation.js'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startTestApi, VALID, type TestApi } from '../../helpers/api.js'
import { auditRows, eventually, newKey } from '../protection/support.js'

const AGENTE_A = 'PER-2026-00011'
const AGENTE_B = 'PER-2026-00012'
const DNI = '12345678Z'
const NEW_DNI = '87654321X'

type Changes = Record<string, { old: unknown; new: unknown }>

/** A denuncia written four times by the admin: created, edited, moved along its workflow, deleted. */
async function lifecycle(api: TestApi) {
  const admin = await api.adminToken()
  const created = await api.create('denuncias', {
    ...VALID['denuncias']!(),
    estado: 'pendiente',
    agente_asignado: AGENTE_A,
    denunciante_dni: DNI,
    observaciones: 'Primera nota',
  })
  const id = created._id as string
  const edit = await api.request('PUT', `/denuncias/${id}`, {
    token: admin,
    body: { observaciones: 'Segunda nota', lugar_hechos: 'Calle Mayor 1', denunciante_dni: NEW_DNI },
  })
  const move = await api.request('PUT', `/denuncias/${id}`, { token: admin, body: { estado: 'investigacion' } })
  const remove = await api.request('DELETE', `/denuncias/${id}`, { token: admin })
  for (const reply of [edit, move, remove])
    if (reply.status !== 200) throw new Error(`write failed: ${reply.status} ${JSON.stringify(reply.body)}`)
  return id
}

const writes = (entries: Record<string, any>[]) =>
  entries.filter((e) => ['crear', 'editar', 'eliminar'].includes(e.action))

t.test('/historial shows each write with its old and new values', async (t) => {
  const api = await startTestApi(t)
  const id = await lifecycle(api)
  const admin = await api.adminToken()
  const reply = await api.request('GET', `/denuncias/${id}/historial`, { token: admin })
  t.equal(reply.status, 200, 'a deleted record keeps its history (D25)')
  const entries = writes(reply.body.data.entries)
  t.same(
    entries.map((e) => [e.action, e.version]),
    [
      ['crear', 1],
      ['editar', 2],
      ['editar', 3],
      ['eliminar', 4],
    ],
  )
  const created = entries[0]!.changes as Changes
  t.same(created['denunciante_nombre'], { old: null, new: 'Ana Pérez' }, 'a creation: every value set, from null')
  t.same(created['denunciante_dni'], { old: null, new: DNI }, 'encrypted: revealed with denuncias.descifrar')
  t.same(created['observaciones'], { old: null, new: 'Primera nota' })
  t.same(created['estado'], { old: null, new: 'pendiente' })
  t.notOk('denunciante_telefono' in created, 'a field left empty is no change')
  t.same(
    entries[1]!.changes,
    {
      denunciante_dni: { old: DNI, new: NEW_DNI },
      lugar_hechos: { old: 'Plaza Mayor', new: 'Calle Mayor 1' },
      observaciones: { old: 'Primera nota', new: 'Segunda nota' },
    },
    'an edit: the fields it changed, old and new',
  )
  t.same(entries[2]!.changes, { estado: { old: 'pendiente', new: 'investigacion' } }, 'a workflow move')
  t.same(entries[3]!.changes, {}, 'a removal changes no value')
  for (const entry of entries) t.type(entry.hash, 'string', 'each entry is still the audit chain entry')
})

t.test('history values under field rules, masking and scope', async (t) => {
  const api = await startTestApi(t)
  const id = await lifecycle(api)
  const consulta = await api.userWithRole('consulta')
  const reply = await api.request('GET', `/denuncias/${id}/historial`, { token: consulta.token })
  t.equal(reply.status, 200)
  const entries = writes(reply.body.data.entries)
  t.notOk(
    entries.some((e) => 'observaciones' in (e.changes ?? {})),
    'consulta cannot read observaciones: not its old nor its new values',
  )
  t.notOk(JSON.stringify(reply.body).includes('nota'), 'no value of observaciones anywhere in the answer')
  t.same(entries[0]!.changes['denunciante_dni'], { old: null, new: '***' }, 'encrypted values masked (D15)')
  t.same(entries[1]!.changes['denunciante_dni'], { old: '***', new: '***' })
  t.notOk(JSON.stringify(reply.body).includes(DNI), 'no encrypted value in clear')
  t.same(entries[1]!.changes['lugar_hechos'], { old: 'Plaza Mayor', new: 'Calle Mayor 1' }, 'plain values shown')

  // An agente outside the record's scope: 404 for history and past versions, as for the record.
  const live = await api.create('denuncias', { ...VALID['denuncias']!(), agente_asignado: AGENTE_A })
  const agenteA = await api.userWithRole('agente', { personal_id: AGENTE_A })
  const agenteB = await api.userWithRole('agente', { personal_id: AGENTE_B })
  for (const path of [`/denuncias/${live._id}/historial`, `/denuncias/${live._id}?version=1`]) {
    const outside = await api.request('GET', path, { token: agenteB.token })
    t.same([outside.status, outside.body.error], [404, 'Registro no encontrado'], `outside the scope: ${path}`)
    t.equal((await api.request('GET', path, { token: agenteA.token })).status, 200, `inside the scope: ${path}`)
  }
})

t.test('?version=N returns the record as it was', async (t) => {
  const api = await startTestApi(t)
  const id = await lifecycle(api)
  const admin = await api.adminToken()
  const expected = [
    {
      _version: 1,
      observaciones: 'Primera nota',
      denunciante_dni: DNI,
      estado: 'pendiente',
      lugar_hechos: 'Plaza Mayor',
    },
    { _version: 2, observaciones: 'Segunda nota', denunciante_dni: NEW_DNI, estado: 'pendiente' },
    { _version: 3, observaciones: 'Segunda nota', lugar_hechos: 'Calle Mayor 1', estado: 'investigacion' },
    { _version: 4, estado: 'investigacion' },
  ]
  const history = writes((await api.request('GET', `/denuncias/${id}/historial`, { token: admin })).body.data.entries)
  for (const want of expected) {
    const reply = await api.request('GET', `/denuncias/${id}?version=${want._version}`, { token: admin })
    t.equal(reply.status, 200, `version ${want._version}`)
    t.match(reply.body.data, { _id: id, ...want })
    t.equal(
      reply.body.data._hash,
      history[want._version - 1]!.record_hash,
      'its _hash is the one its audit entry names',
    )
    t.equal(reply.headers['etag'], undefined, 'a past version carries no ETag to write with')
  }
  t.type((await api.request('GET', `/denuncias/${id}?version=4`, { token: admin })).body.data._deleted, 'string')

  const consulta = await api.userWithRole('consulta')
  const masked = await api.request('GET', `/denuncias/${id}?version=1`, { token: consulta.token })
  t.equal(masked.body.data.denunciante_dni, '***', 'masked without denuncias.descifrar')
  t.notOk('observaciones' in masked.body.data, 'a field the role cannot read is absent')

  const unknown = await api.request('GET', `/denuncias/${id}?version=9`, { token: admin })
  t.same(unknown.body, {
    success: false,
    error: 'Versión del registro no encontrada',
    details: [{ field: 'version', message: 'El registro no guarda la versión 9: su versión actual es la 4' }],
  })
  t.equal(unknown.status, 404)
  for (const bad of ['abc', '0', '-1', '1.5', ''])
    t.equal(
      (await api.request('GET', `/denuncias/${id}?version=${bad}`, { token: admin })).status,
      400,
      `version=${bad}: 400`,
    )
  const missing = await api.request('GET', `/denuncias/DEN-2026-99999?version=1`, { token: admin })
  t.same([missing.status, missing.body.error], [404, 'Registro no encontrado'])
})

t.test('versions keep encrypted values encrypted; reading them is a consultation', async (t) => {
  const api = await startTestApi(t)
  const id = await lifecycle(api)
  const db = api.service.database.db
  const { rows } = await sql<{ data: string }>`select data from _versions where record_id = ${id}`.execute(db)
  t.equal(rows.length, 4, 'one version per write')
  const text = rows.map((r) => r.data).join('\n')
  t.notOk(text.includes(DNI) || text.includes(NEW_DNI), 'no encrypted value in clear in _versions')
  t.ok(text.includes('Primera nota'), 'plain values as written')

  const jefe = await api.userWithRole('jefe')
  t.equal((await api.request('GET', `/denuncias/${id}/historial`, { token: jefe.token })).status, 200)
  t.equal((await api.request('GET', `/denuncias/${id}?version=2`, { token: jefe.token })).status, 200)
  const consultations = await eventually(
    async () => (await auditRows(api)).filter((r) => r['action'] === 'consultar' && r['user_id'] === jefe.id),
    (r) => r.length >= 2,
  )
  t.same(
    consultations.map((r) => [r['record_id'], r['version']]),
    [
      [id, 4],
      [id, 2],
    ],
    'the history and the past version are logged like a GET (the version read named)',
  )
  // One entry per request: a history read names `_historial` (every value it showed); a version read the
  // fields it showed, the revealed encrypted one included.
  t.same(JSON.parse(String(consultations[0]!['fields'])), ['_historial'], 'the history read as such')
  t.ok(
    (JSON.parse(String(consultations[1]!['fields'])) as string[]).includes('denunciante_dni'),
    'the encrypted field the version revealed',
  )
})

t.test('a record written before versions were kept', async (t) => {
  const api = await startTestApi(t)
  const admin = await api.adminToken()
  const record = await api.create('denuncias', { ...VALID['denuncias']!(), observaciones: 'Primera' })
  await api.request('PUT', `/denuncias/${record._id}`, { token: admin, body: { observaciones: 'Antes' } })
  await sql`delete from _versions`.execute(api.service.database.db)
  const current = await api.request('GET', `/denuncias/${record._id}?version=2`, { token: admin })
  t.same([current.status, current.body.data.observaciones], [200, 'Antes'], 'its current version reads from its row')
  const older = await api.request('GET', `/denuncias/${record._id}?version=1`, { token: admin })
  t.same(
    [older.status, older.body.details],
    [404, [{ field: 'version', message: 'El registro no guarda la versión 1: su versión actual es la 2' }]],
    'an earlier one was not kept',
  )
  await api.request('PUT', `/denuncias/${record._id}`, { token: admin, body: { observaciones: 'Después' } })
  const entries = writes(
    (await api.request('GET', `/denuncias/${record._id}/historial`, { token: admin })).body.data.entries,
  )
  t.same(
    entries.map((e) => 'changes' in e),
    [false, false, true],
    'the writes before versions were kept show no values',
  )
  t.same(entries[2]!.changes, { observaciones: { old: 'Antes', new: 'Después' } }, 'the first change after: both')
  t.equal((await api.request('GET', `/denuncias/${record._id}?version=2`, { token: admin })).status, 200)
})

t.test(
  'key rotation keeps the kept versions readable (their record key rewrapped, D41); keys status counts them',
  async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'records-versions-rotation-'))
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
    const oldKey = newKey()
    const newOne = newKey()
    const [oldId, newId] = [keyIdOf(Buffer.from(oldKey, 'base64')), keyIdOf(Buffer.from(newOne, 'base64'))]
    const first = await startTestApi(t, { dataDir, env: { RECORDS_ENCRYPTION_KEY: oldKey } })
    const id = await lifecycle(first)
    const versionsText = async (api: TestApi) =>
      (await sql<{ data: string }>`select data from _versions`.execute(api.service.database.db)).rows
        .map((r) => r.data)
        .join('\n')
    // D41: denuncias has record keys: every version's DNI is under the record's own key.
    t.ok((await versionsText(first)).includes('"r1.'))
    t.notOk((await versionsText(first)).includes(`v1.${oldId}.`))
    await first.service.close()

    const second = await startTestApi(t, {
      dataDir,
      env: { RECORDS_ENCRYPTION_KEY: newOne, RECORDS_ENCRYPTION_OLD_KEYS: oldKey },
    })
    const before = await keyUsage(second.service.database, second.service.spec, second.service.recordKeys)
    // The row and its four versions read through the record's data key, which the old key wraps.
    const dataKeys = await second.service.recordKeys.count()
    t.ok(dataKeys >= 1)
    t.equal(before.get(oldId), dataKeys, 'keys status counts the data keys the old key wraps')
    const result = await rotateEncryption({
      database: second.service.database,
      spec: second.service.spec,
      codec: second.service.codec,
      recordKeys: second.service.recordKeys,
      factors: second.service.factors,
      changes: second.service.changes,
      activeKeyId: second.service.keys.targetId,
      timezone: second.service.spec.service.timezone,
      clock: () => new Date(),
      batchSize: 2,
    })
    t.equal(result.versions, 0, 'no version to re-encrypt: their record key was rewrapped instead')
    const text = await versionsText(second)
    t.notOk(text.includes(`v1.${oldId}.`), 'no version keeps a value under the old key')
    const after = await keyUsage(second.service.database, second.service.spec, second.service.recordKeys)
    t.same([after.get(oldId), after.get(newId)], [undefined, dataKeys])
    await second.service.close()

    const only = await startTestApi(t, { dataDir, env: { RECORDS_ENCRYPTION_KEY: newOne } })
    const admin = await only.adminToken()
    const v1 = await only.request('GET', `/denuncias/${id}?version=1`, { token: admin })
    t.equal(v1.body.data.denunciante_dni, DNI, 'the new key alone reads the old versions')
    const history = writes(
      (await only.request('GET', `/denuncias/${id}/historial`, { token: admin })).body.data.entries,
    )
    t.same(history[1]!.changes['denunciante_dni'], { old: DNI, new: NEW_DNI })
  },
)
