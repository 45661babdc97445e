import t from 'tap'
import { startTestApi, VALID } from '../../helpers/api.js'

t.test('every module of D2 offers the five operations end to end', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  for (const [module, body] of Object.entries(VALID)) {
    // turnos.agente_id references a live staff record (a ref); the loop deleted its own.
    const values: Record<string, unknown> =
      module === 'turnos' ? { ...body(), agente_id: (await api.create('personal', VALID['personal']!()))._id } : body()
    const created = await api.request('POST', `/${module}`, { token, body: values })
    t.equal(created.status, 201, `${module} create`)
    const record = created.body.data
    t.match(record._id, new RegExp(`^[A-Z0-9]+-\\d{4}-\\d{5}$`), `${module} id format (D8)`)
    t.equal(record._version, 1)
    t.equal(record._created, record._modified)
    t.equal(record._created_by, record._modified_by)
    const got = await api.request('GET', `/${module}/${record._id}`, { token })
    t.same(got.body, { success: true, data: record }, `${module} get returns what create returned`)
    t.equal(got.headers['etag'], '"1"', 'D13: ETag is the version')
    const list = await api.request('GET', `/${module}`, { token })
    t.equal(list.body.data.total, 1)
    t.same(list.body.data.records, [record])
    const firstField = Object.keys(values)[0] as string
    const updated = await api.request('PUT', `/${module}/${record._id}`, {
      token,
      body: { [firstField]: values[firstField] },
    })
    t.equal(updated.status, 200, `${module} update`)
    t.equal(updated.body.data._version, 2)
    const removed = await api.request('DELETE', `/${module}/${record._id}`, { token })
    t.same(removed.body, { success: true, data: { message: 'Registro eliminado' } }, 'D23: delete message')
    t.equal((await api.request('GET', `/${module}/${record._id}`, { token })).status, 404)
  }
})
