// SQL injection through every filter (names and values), sort, path parameter and
// audit-trail filter of every module. A payload is data: it matches nothing, is refused as a
// 400 naming it, and never changes, reveals or breaks anything (D11, D25).
import { sql } from 'kysely'
import t from 'tap'
import { startTestApi, VALID } from '../../helpers/api.js'
import { envelopeProblem, snapshot } from './support.js'

const PAYLOADS = [
  "' OR '1'='1",
  "' OR 1=1 --",
  '" OR ""="',
  "1' UNION SELECT _id, _hash FROM usuarios --",
  "'; DROP TABLE denuncias; --",
  "x'); DELETE FROM _audit; --",
  '1 OR 1=1',
  "' AND (SELECT count(*) FROM sqlite_master) > 0 --",
  "') OR ('a'='a",
  "' || (SELECT password FROM usuarios LIMIT 1) || '",
  '%',
  '_',
  '*',
  '\\',
  "'",
  '"',
  '`',
  ';',
  '--',
  '/*',
  'NULL',
  '0x27',
  "1; ATTACH DATABASE '/tmp/x.db' AS x; --",
  "' GLOB '*",
  '1) OR (1=1',
]
const NAME_PAYLOADS = [
  "tipo' OR '1'='1",
  'tipo;--',
  'tipo"',
  '1=1',
  '(select 1)',
  'rowid',
  '_row',
  'sqlite_master',
  'tipo OR 1',
  'usuarios.password',
  '_bidx_denunciante_dni',
  '*',
]

t.test('SQL injection through every filter, sort and path parameter of every module', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const { database, spec: service } = api.service
  for (const spec of service.modules)
    if (VALID[spec.name] !== undefined) await api.create(spec.name, VALID[spec.name]!())
  const before = await snapshot(database, service)
  let requests = 0
  const get = async (path: string, allowed: readonly number[]) => {
    requests += 1
    const reply = await api.request('GET', path, { token })
    const problem = envelopeProblem(reply.status, reply.body)
    if (problem !== undefined || !allowed.includes(reply.status))
      t.fail(`${path}: ${reply.status} ${problem ?? ''} ${JSON.stringify(reply.body).slice(0, 200)}`)
    return reply
  }
  for (const spec of service.modules) {
    const base = `/${spec.name}`
    const total = (await get(base, [200])).body.data.total as number
    const filterable = [
      ...spec.fields.filter((f) => f.parseFilter !== null).map((f) => f.name),
      '_created_by',
      '_modified_by',
    ]
    for (const payload of PAYLOADS) {
      const value = encodeURIComponent(payload)
      for (const name of filterable) {
        const reply = await get(`${base}?${name}=${value}`, [200, 400])
        if (reply.status === 200 && reply.body.data.total !== 0)
          t.fail(`${spec.name}.${name}=${payload} matched ${reply.body.data.total} records`)
      }
      await get(`${base}?sort=${value}`, [400])
      await get(`${base}?sort=-${value}`, [400])
      await get(`${base}?limit=${value}`, [400])
      await get(`${base}?offset=${value}`, [400])
      for (const operation of ['', '/historial']) await get(`${base}/${value}${operation}`, [404])
    }
    for (const name of NAME_PAYLOADS) {
      const reply = await get(`${base}?${encodeURIComponent(name)}=1`, [400])
      if (!JSON.stringify(reply.body.details).includes(name.replace(/"/g, '\\"')))
        t.fail(`the 400 for filter '${name}' does not name it`)
    }
    t.equal(
      (await get(base, [200])).body.data.total,
      total,
      `${spec.name}: every payload matched nothing and the list is whole`,
    )
  }
  for (const payload of PAYLOADS)
    for (const name of ['modulo', 'registro', 'usuario', 'accion'])
      await get(`/auditoria?${name}=${encodeURIComponent(payload)}`, [200, 400])
  t.equal(await snapshot(database, service), before, `${requests} injection attempts changed nothing`)
  const tables =
    database.dialect === 'sqlite'
      ? await sql<{ n: number }>`select count(*) as n from sqlite_master where type = 'table'`.execute(database.db)
      : await sql<{
          n: number
        }>`select count(*) as n from information_schema.tables where table_schema = current_schema()`.execute(
          database.db,
        )
  t.ok(Number(tables.rows[0]?.n) > service.modules.length, 'every table is still there')
})

t.test('a stored payload is data: it reads back and filters exactly, and matches only itself', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const payload = "x' OR '1'='1"
  await api.create('denuncias', VALID['denuncias']!())
  const { _id: id } = await api.create('denuncias', {
    ...VALID['denuncias']!(),
    tipo: payload,
    denunciante_dni: payload,
  })
  const byTipo = await api.request('GET', `/denuncias?tipo=${encodeURIComponent(payload)}`, { token })
  t.same(
    byTipo.body.data.records.map((r: { _id: string }) => r._id),
    [id],
  )
  const byDni = await api.request('GET', `/denuncias?denunciante_dni=${encodeURIComponent(payload)}`, { token })
  t.same(
    byDni.body.data.records.map((r: { _id: string }) => r._id),
    [id],
    'through the blind index too (D16)',
  )
  t.equal(byDni.body.data.records[0].denunciante_dni, payload)
})
