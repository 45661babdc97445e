// D13: optimistic concurrency with ETag / If-Match on the record version.
import t from 'tap'
import { startTestApi, VALID } from '../../helpers/api.js'

t.test('D13: GET of one record sends ETag "<_version>"', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const { _id } = await api.create('denuncias', VALID['denuncias']!())
  t.equal((await api.request('GET', `/denuncias/${_id}`, { token })).headers['etag'], '"1"')
  const updated = await api.request('PUT', `/denuncias/${_id}`, { token, body: { observaciones: 'a' } })
  t.equal(updated.headers['etag'], '"2"', 'PUT answers the new version')
  t.equal((await api.request('GET', `/denuncias/${_id}`, { token })).headers['etag'], '"2"')
})

t.test('D13: a PUT with a stale If-Match is 409 Conflicto de versión and writes nothing', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const { _id } = await api.create('denuncias', VALID['denuncias']!())
  const first = await api.request('PUT', `/denuncias/${_id}`, {
    token,
    body: { observaciones: 'primera' },
    headers: { 'if-match': '"1"' },
  })
  t.equal(first.status, 200)
  t.equal(first.body.data._version, 2)
  const second = await api.request('PUT', `/denuncias/${_id}`, {
    token,
    body: { observaciones: 'segunda' },
    headers: { 'if-match': '"1"' },
  })
  t.equal(second.status, 409)
  t.match(second.body, { success: false, error: 'Conflicto de versión' })
  const got = await api.request('GET', `/denuncias/${_id}`, { token })
  t.equal(got.body.data.observaciones, 'primera', 'the stale write was not applied')
  t.equal(got.body.data._version, 2)
  const ahead = await api.request('PUT', `/denuncias/${_id}`, {
    token,
    body: { observaciones: 'x' },
    headers: { 'if-match': '"3"' },
  })
  t.equal(ahead.status, 409, 'a version from the future is stale too')
  const current = await api.request('PUT', `/denuncias/${_id}`, {
    token,
    body: { observaciones: 'tercera' },
    headers: { 'if-match': '"2"' },
  })
  t.equal(current.status, 200)
  t.equal(current.body.data._version, 3)
})

t.test('D13: a DELETE with a stale If-Match is 409 and deletes nothing', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const { _id } = await api.create('vehiculos', VALID['vehiculos']!())
  await api.request('PUT', `/vehiculos/${_id}`, { token, body: { marca: 'Seat' } })
  const stale = await api.request('DELETE', `/vehiculos/${_id}`, { token, headers: { 'if-match': '"1"' } })
  t.equal(stale.status, 409)
  t.match(stale.body, { success: false, error: 'Conflicto de versión' })
  t.equal((await api.request('GET', `/vehiculos/${_id}`, { token })).status, 200, 'still there')
  const ok = await api.request('DELETE', `/vehiculos/${_id}`, { token, headers: { 'if-match': '"2"' } })
  t.equal(ok.status, 200)
  t.equal((await api.request('GET', `/vehiculos/${_id}`, { token })).status, 404)
})

t.test('D13: a malformed If-Match is 400', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const { _id } = await api.create('denuncias', VALID['denuncias']!())
  for (const header of ['abc', '"uno"', '"1', '1.0', '"-1"', '"1", "2"']) {
    const put = await api.request('PUT', `/denuncias/${_id}`, {
      token,
      body: { observaciones: 'x' },
      headers: { 'if-match': header },
    })
    t.equal(put.status, 400, `PUT If-Match: ${header}`)
    t.equal(put.body.success, false)
    const del = await api.request('DELETE', `/denuncias/${_id}`, { token, headers: { 'if-match': header } })
    t.equal(del.status, 400, `DELETE If-Match: ${header}`)
  }
  t.equal((await api.request('GET', `/denuncias/${_id}`, { token })).body.data._version, 1, 'nothing written')
})

t.test('D13: without If-Match the last write wins', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const { _id } = await api.create('denuncias', VALID['denuncias']!())
  const a = await api.request('PUT', `/denuncias/${_id}`, { token, body: { observaciones: 'A' } })
  const b = await api.request('PUT', `/denuncias/${_id}`, { token, body: { observaciones: 'B' } })
  t.equal(a.status, 200)
  t.equal(b.status, 200)
  const got = await api.request('GET', `/denuncias/${_id}`, { token })
  t.equal(got.body.data.observaciones, 'B')
  t.equal(got.body.data._version, 3)
  const star = await api.request('PUT', `/denuncias/${_id}`, {
    token,
    body: { observaciones: 'C' },
    headers: { 'if-match': '*' },
  })
  t.equal(star.status, 200, 'If-Match: * matches any version')
})

t.test('D13: concurrent PUTs with the same If-Match: exactly one wins', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const { _id } = await api.create('denuncias', VALID['denuncias']!())
  const replies = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      api.request('PUT', `/denuncias/${_id}`, {
        token,
        body: { observaciones: `escritor ${i}` },
        headers: { 'if-match': '"1"' },
      }),
    ),
  )
  t.same(replies.map((r) => r.status).sort(), [200, ...Array(7).fill(409)])
  const got = await api.request('GET', `/denuncias/${_id}`, { token })
  t.equal(got.body.data._version, 2)
  const winner = replies.find((r) => r.status === 200)
  t.equal(got.body.data.observaciones, winner?.body.data.observaciones)
})

t.test(
  'D13: GET with If-None-Match of the current version is 304 without a body; a newer version is 200',
  async (t) => {
    const api = await startTestApi(t)
    const token = await api.adminToken()
    const { _id } = await api.create('denuncias', VALID['denuncias']!())
    for (const tag of ['"1"', 'W/"1"', '"7", "1"', '*']) {
      const cached = await api.request('GET', `/denuncias/${_id}`, { token, headers: { 'if-none-match': tag } })
      t.equal(cached.status, 304, `If-None-Match: ${tag}`)
      t.equal(cached.headers['etag'], '"1"')
      t.equal(cached.body, '', 'no body')
    }
    const other = await api.request('GET', `/denuncias/${_id}`, { token, headers: { 'if-none-match': '"2"' } })
    t.equal(other.status, 200, 'another version: the record')
    t.equal(other.body.data._id, _id)
    await api.request('PUT', `/denuncias/${_id}`, { token, body: { observaciones: 'a' } })
    const stale = await api.request('GET', `/denuncias/${_id}`, { token, headers: { 'if-none-match': '"1"' } })
    t.equal(stale.status, 200, 'the record changed: 200 with version 2')
    t.equal(stale.headers['etag'], '"2"')
    const gone = await api.request('GET', `/denuncias/DEN-2026-99999`, { token, headers: { 'if-none-match': '*' } })
    t.equal(gone.status, 404, 'no record: 404, never 304')
  },
)
