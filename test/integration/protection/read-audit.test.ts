// Directive (EU) 2016/680 art. 25: every response that returns decrypted
// values of encrypted fields adds a `consultar` entry naming the fields, never the values.
// Since D29 a module holding personal data logs every read, masked ones included, as ONE
// entry per request (consultations.test.ts). Entries are buffered and written in batches; a
// clean stop flushes.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { verifyIntegrity } from '../../../src/db/operations/verify-integrity.js'
import { startTestApi, VALID, type TestApi } from '../../helpers/api.js'
import { auditRows, eventually, markerFor } from './support.js'

const consultas = async (api: TestApi) => (await auditRows(api)).filter((r) => r['action'] === 'consultar')

async function seed(api: TestApi) {
  const spec = api.service.spec.moduleByName.get('denuncias')!
  const dni = markerFor(spec.fieldsByName.get('denunciante_dni')!)
  const domicilio = markerFor(spec.fieldsByName.get('denunciante_domicilio')!)
  const sensitive = await api.create('denuncias', {
    ...VALID['denuncias']!(),
    denunciante_dni: dni,
    denunciante_domicilio: domicilio,
  })
  const plain = await api.create('denuncias', VALID['denuncias']!())
  return { sensitive, plain, values: [dni, domicilio] }
}

t.test('a revealing GET names the encrypted fields it decrypted; a masked one lists none of them', async (t) => {
  const api = await startTestApi(t)
  const { sensitive, plain, values } = await seed(api)
  const jefe = await api.userWithRole('jefe')
  const consulta = await api.userWithRole('consulta')

  t.equal(
    (await api.request('GET', `/denuncias/${sensitive._id}`, { token: consulta.token })).body.data.denunciante_dni,
    '***',
  )
  t.equal(
    (await api.request('GET', `/denuncias/${plain._id}`, { token: jefe.token })).status,
    200,
    'a record without encrypted values',
  )
  const revealed = await api.request('GET', `/denuncias/${sensitive._id}`, { token: jefe.token })
  t.equal(revealed.body.data.denunciante_dni, values[0])

  const rows = await eventually(
    () => consultas(api),
    (r) => r.length >= 3,
  )
  t.equal(rows.length, 3, 'one entry per read of denuncias (personal data)')
  const encrypted = (row: Record<string, unknown> | undefined) =>
    (JSON.parse(String(row?.['fields'])) as string[])
      .filter((f) => f.startsWith('denunciante_') && f !== 'denunciante_nombre' && f !== 'denunciante_email')
      .sort()
  t.match(rows[0], { user_id: consulta.id, record_id: sensitive._id })
  t.same(encrypted(rows[0]), [], 'masked: no encrypted field listed')
  t.same(encrypted(rows[1]), [], 'no encrypted value held: none listed')
  t.match(rows[2], { user_id: jefe.id, module: 'denuncias', record_id: sensitive._id, version: 1 })
  t.same(encrypted(rows[2]), ['denunciante_dni', 'denunciante_domicilio'], 'the fields revealed, by name')
  const text = JSON.stringify(await auditRows(api))
  for (const value of values) t.notOk(text.includes(value), 'no value in the audit table')
  t.same(
    (await verifyIntegrity(api.service.database, api.service.spec, api.service.codec)).problems,
    [],
    'the chain stays valid',
  )
})

t.test('a list or an encrypted filter that reveals is one entry listing the ids returned', async (t) => {
  const api = await startTestApi(t)
  const { sensitive, plain, values } = await seed(api)
  const second = await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_telefono: '600123123' })
  const oficial = await api.userWithRole('oficial')
  const list = await api.request('GET', '/denuncias', { token: oficial.token })
  t.equal(list.body.data.total, 3)
  const filtered = await api.request('GET', `/denuncias?denunciante_dni=${values[0]}`, { token: oficial.token })
  t.equal(filtered.body.data.total, 1)
  const rows = await eventually(
    () => consultas(api),
    (r) => r.length >= 2,
  )
  t.equal(rows.length, 2, 'one entry per request, not per record')
  t.same(JSON.parse(String(rows[0]!['record_ids'])).sort(), [sensitive._id, plain._id, second._id].sort())
  t.same(JSON.parse(String(rows[1]!['record_ids'])), [sensitive._id])
  const fields = JSON.parse(String(rows[0]!['fields'])) as string[]
  t.ok(['denunciante_dni', 'denunciante_domicilio', 'denunciante_telefono'].every((f) => fields.includes(f)))
  t.ok(rows.every((r) => r['user_id'] === oficial.id))
  t.notOk(JSON.stringify(rows).includes(String(values[0])), 'the filter value only as its hash')
})

t.test('read entries are written in batches, not one write per request', async (t) => {
  const api = await startTestApi(t)
  const { sensitive } = await seed(api)
  const token = await api.adminToken()
  const before = (await auditRows(api)).length
  await Promise.all(Array.from({ length: 50 }, () => api.request('GET', `/denuncias/${sensitive._id}`, { token })))
  t.ok((await auditRows(api)).length - before < 50, 'not written one by one with the reads')
  const rows = await eventually(
    () => consultas(api),
    (r) => r.length >= 50,
  )
  t.equal(rows.length, 50)
  t.ok(
    rows.every((r) => /\.\d{3}$/.test(String(r['at']))),
    'each entry keeps its request time, with ms',
  )
})

t.test('a clean stop flushes pending read entries', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-readaudit-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const api = await startTestApi(t, { dataDir })
  const { sensitive } = await seed(api)
  await api.request('GET', `/denuncias/${sensitive._id}`, { token: await api.adminToken() })
  await api.service.close() // well before the 1 s flush delay
  const reopened = await startTestApi(t, { dataDir })
  const rows = await consultas(reopened)
  t.equal(rows.length, 1, 'the read survived the stop')
  t.equal(rows[0]?.['record_id'], sensitive._id)
})

t.test('an update response that returns decrypted values the caller did not send is audited as a read', async (t) => {
  const api = await startTestApi(t)
  const { sensitive, values } = await seed(api)
  // An oficial edits any denuncia (an agente's scope would make this one a 404).
  const oficial = await api.userWithRole('oficial')
  const put = await api.request('PUT', `/denuncias/${sensitive._id}`, {
    token: oficial.token,
    body: { descripcion: 'Sin tocar datos personales' },
  })
  t.equal(put.body.data.denunciante_dni, values[0], 'the response discloses the decrypted value')
  const rows = await eventually(
    () => consultas(api),
    (r) => r.length > 0,
  )
  t.match(
    rows,
    [{ user_id: oficial.id, module: 'denuncias', record_id: sensitive._id, version: 2 }],
    'the disclosure is in the trail',
  )
  t.same(JSON.parse(String(rows[0]?.['fields'] ?? '[]')).sort(), ['denunciante_dni', 'denunciante_domicilio'])
})
