// The live feed: resuming after a drop, and a point too old. On SQLite and PostgreSQL.
import t from 'tap'
import { listening, sala } from './support.js'

t.test('Last-Event-ID resumes without losing an event; too old a point gets `recargar`', async (t) => {
  const { api, feed } = await listening(t, { EVENT_REPLAY_MAX_ENTRIES: '20' })
  const admin = await api.adminToken()
  const stream = await feed('?modulos=sala092', admin)
  const one = await api.create('sala092', sala())
  const seen = await stream.next()
  t.equal(seen.data.id, one._id)
  stream.close()
  const two = await api.create('sala092', sala())
  const three = await api.create('sala092', sala())
  await api.request('PUT', `/sala092/${one._id}`, { token: admin, body: { estado: 'resuelta' } })
  const resumed = await feed('?modulos=sala092', admin, { 'last-event-id': seen.id as string })
  t.same(
    [await resumed.next(), await resumed.next(), await resumed.next()].map((e) => [e.event, e.data.id]),
    [
      ['crear', two._id],
      ['crear', three._id],
      ['mover', one._id],
    ],
    'the writes made while away, in order',
  )
  const four = await api.create('sala092', sala())
  t.equal((await resumed.next()).data.id, four._id, 'then live again')
  const viaQuery = await feed(`?modulos=sala092&desde=${seen.id}`, admin)
  t.equal((await viaQuery.next()).data.id, two._id, '?desde= resumes as the header does')
  for (let i = 0; i < 25; i++) await api.create('sala092', sala())
  const stale = await feed('?modulos=sala092', admin, { 'last-event-id': seen.id as string })
  const reload = await stale.next()
  t.equal(reload.event, 'recargar')
  t.match(reload.data.mensaje, /demasiado antiguo/)
  const future = await feed('?modulos=sala092&desde=99999999', admin)
  t.equal((await future.next()).event, 'recargar', 'a point the chain never had')
  const garbage = await feed('?modulos=sala092&desde=abc', admin)
  t.equal(garbage.status, 400)
})
