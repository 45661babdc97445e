// The live feed (issue #16 item 5): GET /eventos over a real socket, on SQLite and PostgreSQL.
import t, { type Test } from 'tap'
import { startTestApi, VALID, type TestApi } from '../../helpers/api.js'
import { openSse, type SseStream } from '../../helpers/sse.js'

async function listening(t: Test, env: Record<string, string> = {}, clock?: () => Date) {
  const api = await startTestApi(t, { env, ...(clock === undefined ? {} : { clock }) })
  const address = await api.service.app.listen({ port: 0, host: '127.0.0.1' })
  const streams: SseStream[] = []
  t.teardown(() => streams.forEach((s) => s.close()))
  const feed = async (query: string, token: string | undefined, headers: Record<string, string> = {}) => {
    const stream = await openSse(`${address}${api.base}/eventos${query}`, {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...headers,
    })
    streams.push(stream)
    return stream
  }
  return { api, address, feed }
}

const sala = () => VALID['sala092']!()

t.test('#16: create, update, move and delete arrive as events with the audit seq as id', async (t) => {
  const { api, feed } = await listening(t)
  const admin = await api.adminToken()
  const stream = await feed('?modulos=sala092', admin)
  t.equal(stream.status, 200)
  t.match(stream.headers.get('content-type'), /^text\/event-stream/)
  const created = await api.create('sala092', { ...sala(), numero_llamada: '600111222' })
  const first = await stream.next()
  t.equal(first.event, 'crear')
  t.match(first.data, { modulo: 'sala092', id: created._id, accion: 'crear', version: 1 })
  t.equal(first.data.registro.numero_llamada, '600111222', 'a superadmin reads it decrypted, as a GET')
  const put = await api.request('PUT', `/sala092/${created._id}`, { token: admin, body: { ubicacion: 'Calle Sol' } })
  t.equal(put.status, 200)
  const edited = await stream.next()
  t.equal(edited.event, 'editar')
  t.same(edited.data.campos, ['ubicacion'])
  t.equal(edited.data.registro.ubicacion, 'Calle Sol')
  t.ok(Number(edited.id) > Number(first.id), 'ids grow with the audit seq')
  await api.request('PUT', `/sala092/${created._id}`, { token: admin, body: { estado: 'en_curso' } })
  const moved = await stream.next()
  t.equal(moved.event, 'mover', 'a workflow move has its own event')
  t.equal(moved.data.registro.estado, 'en_curso')
  t.equal((await api.request('DELETE', `/sala092/${created._id}`, { token: admin })).status, 200)
  const removed = await stream.next()
  t.equal(removed.event, 'eliminar')
  t.same(removed.data, { modulo: 'sala092', id: created._id, accion: 'eliminar', version: 4 })
  const trail = await api.request('GET', `/auditoria?registro=${created._id}&accion=eliminar`, { token: admin })
  t.equal(String(trail.body.data.entries[0].seq), removed.id, 'the id is the seq of the audit entry')
})
