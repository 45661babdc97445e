// D10: a deleted record is gone for the API, but stays in the database and the audit log.
import t from 'tap'
import { startTestApi, VALID } from '../../helpers/api.js'

t.test('D10: a deleted record is 404 on GET, PUT and DELETE', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const { _id } = await api.create('denuncias', VALID['denuncias']!())
  t.same((await api.request('DELETE', `/denuncias/${_id}`, { token })).body, {
    success: true,
    data: { message: 'Registro eliminado' },
  })
  const notFound = { success: false, error: 'Registro no encontrado' }
  const get = await api.request('GET', `/denuncias/${_id}`, { token })
  t.equal(get.status, 404)
  t.same(get.body, notFound)
  const put = await api.request('PUT', `/denuncias/${_id}`, { token, body: { observaciones: 'tarde' } })
  t.equal(put.status, 404)
  t.same(put.body, notFound)
  const again = await api.request('DELETE', `/denuncias/${_id}`, { token })
  t.equal(again.status, 404)
  t.same(again.body, notFound)
  const withIfMatch = await api.request('PUT', `/denuncias/${_id}`, {
    token,
    body: { observaciones: 'x' },
    headers: { 'if-match': '"2"' },
  })
  t.equal(withIfMatch.status, 404, 'a deleted record is not found even with its current version')
})

t.test('D10: a deleted record leaves the list and its total, in every module', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  for (const module of Object.keys(VALID)) {
    const keep = await api.create(module, VALID[module]!())
    const gone = await api.create(module, VALID[module]!())
    await api.request('DELETE', `/${module}/${gone._id}`, { token })
    const list = await api.request('GET', `/${module}`, { token })
    t.equal(list.body.data.total, 1, `${module}: total`)
    t.same(
      list.body.data.records.map((r: { _id: string }) => r._id),
      [keep._id],
      `${module}: records`,
    )
    const filtered = await api.request('GET', `/${module}?_created_by=${encodeURIComponent(gone._created_by)}`, {
      token,
    })
    t.notOk(
      filtered.body.data.records.some((r: { _id: string }) => r._id === gone._id),
      `${module}: not found by a filter either`,
    )
  }
})

t.test('D10: a deleted record stays in its table with _deleted set, and in the audit log', async (t) => {
  const api = await startTestApi(t, { clock: () => new Date('2026-11-20T09:00:00Z') })
  const token = await api.adminToken()
  const created = await api.create('denuncias', { ...VALID['denuncias']!(), observaciones: 'conservar' })
  await api.request('DELETE', `/denuncias/${created._id}`, { token })
  const { db } = api.service.database
  const row = await db.selectFrom('denuncias').selectAll().where('_id', '=', created._id).executeTakeFirst()
  t.ok(row, 'the row is still there')
  t.equal(row?.['_deleted'], '2026-11-20 10:00:00')
  t.equal(row?.['observaciones'], 'conservar', 'its data untouched')
  t.equal(row?.['descripcion'], created.descripcion)
  t.equal(row?.['_version'], 2, 'a delete is a new version')
  t.not(row?.['_hash'], created._hash, '_hash follows the new version')
  const audit = await db
    .selectFrom('_audit')
    .select(['action', 'version'])
    .where('record_id', '=', created._id)
    .orderBy('seq')
    .execute()
  t.same(
    audit.map((a) => [a['action'], a['version']]),
    [
      ['crear', 1],
      ['eliminar', 2],
    ],
  )
  const history = await api.request('GET', `/denuncias/${created._id}/historial`, { token })
  t.equal(history.status, 200, 'the history of a deleted record can still be read (D25)')
})
