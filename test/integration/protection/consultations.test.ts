// Every read of a module holding personal data is a consultation, logged
// as ONE chained entry per request (who, when in ms, address, request id, motivo, ids returned,
// fields shown, criteria with encrypted values only as blind-index hashes); X-Motivo required
// where modules.yaml says; old entries and new ones verify together.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import t from 'tap'
import { GENESIS_HASH, hashAuditEntry } from '../../../src/db/audit/log.js'
import { verifyIntegrity } from '../../../src/db/operations/verify-integrity.js'
import { MESSAGES } from '../../../src/errors.js'
import { startTestApi, VALID, type TestApi } from '../../helpers/api.js'
import { auditRows, eventually } from './support.js'

const consultas = async (api: TestApi) => (await auditRows(api)).filter((r) => r['action'] === 'consultar')
const json = (value: unknown) => (value === null || value === undefined ? null : JSON.parse(String(value)))
const verify = async (api: TestApi) =>
  (await verifyIntegrity(api.service.database, api.service.spec, api.service.codec)).problems

t.test('a consulta user reading no encrypted value leaves one entry per request', async (t) => {
  const api = await startTestApi(t)
  const denuncia = await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: '11111111H' })
  const vehiculo = await api.create('vehiculos', VALID['vehiculos']!())
  const consulta = await api.userWithRole('consulta')
  const one = await api.request('GET', `/denuncias/${denuncia._id}`, { token: consulta.token })
  t.equal(one.status, 200)
  t.equal(one.body.data.denunciante_dni, '***', 'nothing decrypted')
  const list = await api.request('GET', '/denuncias?tipo=hurto', { token: consulta.token })
  t.equal(list.body.data.total, 1)
  t.equal((await api.request('GET', `/vehiculos/${vehiculo._id}`, { token: consulta.token })).status, 200)
  const history = await api.request('GET', `/denuncias/${denuncia._id}/historial`, { token: consulta.token })
  t.equal(history.status, 200)

  const rows = await eventually(
    () => consultas(api),
    (r) => r.length >= 3,
  )
  t.equal(rows.length, 3, 'GET, list and history of denuncias; vehiculos holds no personal data')
  const [get, page, historial] = rows
  t.match(get, {
    user_id: consulta.id,
    module: 'denuncias',
    record_id: denuncia._id,
    version: 1,
    address: '127.0.0.1',
    request_id: one.headers['x-request-id'],
    motivo: null,
  })
  t.match(String(get!['at']), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}$/, 'the time with ms')
  t.same(json(get!['record_ids']), [denuncia._id])
  const fields = json(get!['fields']) as string[]
  t.ok(fields.includes('denunciante_nombre') && fields.includes('descripcion'), 'the plain fields shown')
  t.notOk(fields.includes('denunciante_dni'), 'a masked field is not listed as shown')
  t.notOk(fields.includes('observaciones'), 'a field the role cannot read is not listed')
  t.match(page, { record_id: null, request_id: list.headers['x-request-id'] })
  t.same(json(page!['record_ids']), [denuncia._id])
  t.same(json(page!['criteria']), { tipo: 'hurto', limit: 100, offset: 0 })
  t.match(historial, { record_id: denuncia._id, fields: '["_historial"]' })
  t.same(await verify(api), [], 'the chain verifies')
})

t.test('a zero-hit DNI search is logged with the hashed criteria, never the DNI', async (t) => {
  const api = await startTestApi(t)
  await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: '22222222J' })
  const jefe = await api.userWithRole('jefe')
  const dni = '99999999R'
  const search = await api.request('GET', `/denuncias?denunciante_dni=${dni}`, { token: jefe.token })
  t.equal(search.status, 200)
  t.equal(search.body.data.total, 0, 'nobody found')
  const rows = await eventually(
    () => consultas(api),
    (r) => r.length > 0,
  )
  t.equal(rows.length, 1)
  t.same(json(rows[0]!['record_ids']), [], 'no id returned')
  t.same(json(rows[0]!['criteria']), {
    denunciante_dni: { indice_ciego: [...api.service.codec.blindIndexes(dni)] },
    limit: 100,
    offset: 0,
  })
  t.notOk(JSON.stringify(await auditRows(api)).includes(dni), 'the DNI appears nowhere in _audit')
})

t.test('a list of 1000 records writes one bounded row', async (t) => {
  const api = await startTestApi(t)
  const spec = api.service.spec.moduleByName.get('denuncias')!
  const values = Array.from({ length: 1000 }, () => VALID['denuncias']!())
  t.equal(await api.service.store.createMany(spec, values, { actor: 'test' }), 1000)
  const token = await api.adminToken()
  const before = (await consultas(api)).length
  const list = await api.request('GET', '/denuncias?limit=1000', { token })
  t.equal(list.body.data.records.length, 1000)
  const rows = await eventually(
    () => consultas(api),
    (r) => r.length > before,
  )
  t.equal(rows.length - before, 1, 'one row for the page')
  const ids = json(rows.at(-1)!['record_ids']) as string[]
  t.equal(ids.length, 1000, 'the ids returned')
  t.ok(String(rows.at(-1)!['record_ids']).length < 25_000, 'about 20 KB of ids')
  t.same(await verify(api), [])
})

t.test('X-Motivo is required of roles below jefe reading personal, and stored', async (t) => {
  const api = await startTestApi(t)
  const persona = await api.create('personal', VALID['personal']!())
  const consulta = await api.userWithRole('consulta')
  const jefe = await api.userWithRole('jefe')
  for (const path of [`/personal/${persona._id}`, '/personal', `/personal/${persona._id}/historial`]) {
    const refused = await api.request('GET', path, { token: consulta.token })
    t.equal(refused.status, 400, `${path} without a motivo`)
    t.equal(refused.body.error, MESSAGES.motivoRequired)
    t.match(refused.body.details, [{ field: 'X-Motivo', message: /consulta.*consultar.*personal/ }])
  }
  const motivo = 'Comprobación de destino, expediente 12/2026'
  const given = await api.request('GET', `/personal/${persona._id}`, {
    token: consulta.token,
    headers: { 'x-motivo': encodeURIComponent(motivo) },
  })
  t.equal(given.status, 200, 'with a motivo')
  t.equal(
    (await api.request('GET', `/personal/${persona._id}`, { token: jefe.token })).status,
    200,
    'a jefe needs none',
  )
  const tooLong = await api.request('GET', '/vehiculos', {
    token: jefe.token,
    headers: { 'x-motivo': 'x'.repeat(501) },
  })
  t.equal(tooLong.status, 400, 'longer than 500 characters, on any request')
  t.match(tooLong.body.details, [{ field: 'X-Motivo', message: /no puede superar 500 caracteres/ }])

  const rows = await eventually(
    () => consultas(api),
    (r) => r.length >= 2,
  )
  t.equal(rows.length, 2, 'the refused reads left no entry')
  t.match(rows, [
    { user_id: consulta.id, motivo, request_id: given.headers['x-request-id'] },
    { user_id: jefe.id, motivo: null },
  ])
})

t.test('entries written before the request columns and after them verify together', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-consult-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const old = await startTestApi(t, { dataDir })
  const denuncia = await old.create('denuncias', VALID['denuncias']!())
  // The table as it was before the request columns (D29), and an entry written by the code of then.
  const db = old.service.database.db
  for (const column of ['address', 'request_id', 'motivo', 'recipient', 'record_ids', 'criteria'])
    await sql`alter table _audit drop column ${sql.ref(column)}`.execute(db)
  const tail = (
    await sql<{ seq: number; hash: string }>`select seq, hash from _audit order by seq desc limit 1`.execute(db)
  ).rows[0]
  const entry = {
    seq: Number(tail?.seq ?? 0) + 1,
    at: '2026-11-01 10:00:00.000',
    user_id: 'USR-2026-00001',
    action: 'consultar' as const,
    module: 'denuncias',
    record_id: denuncia._id,
    version: 1,
    record_hash: null,
    fields: ['denunciante_dni'],
    prev_hash: tail?.hash ?? GENESIS_HASH,
  }
  await sql`insert into _audit (seq, at, user_id, action, module, record_id, version, record_hash, fields, prev_hash, hash)
    values (${entry.seq}, ${entry.at}, ${entry.user_id}, ${entry.action}, ${entry.module}, ${entry.record_id},
            ${entry.version}, ${null}, ${JSON.stringify(entry.fields)}, ${entry.prev_hash}, ${hashAuditEntry(entry)})`.execute(
    db,
  )
  await old.service.close()

  const upgraded = await startTestApi(t, { dataDir })
  const consulta = await upgraded.userWithRole('consulta')
  await upgraded.request('GET', `/denuncias/${denuncia._id}`, {
    token: consulta.token,
    headers: { 'x-motivo': 'Revisión' },
  })
  const rows = await eventually(
    () => consultas(upgraded),
    (r) => r.length >= 2,
  )
  t.match(rows, [
    { record_id: denuncia._id, at: entry.at, motivo: null, address: null },
    { motivo: 'Revisión', address: '127.0.0.1' },
  ])
  t.same(await verify(upgraded), [], 'old-format and new-format entries verify together')

  // A value slipped into an old entry's new column is caught: the hash now covers it.
  await sql`update _audit set motivo = 'inventado' where seq = ${entry.seq}`.execute(upgraded.service.database.db)
  t.match(await verify(upgraded), [{ kind: 'audit_hash', seq: entry.seq }])
})
