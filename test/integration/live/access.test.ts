// The live feed: scopes and list filters, and the leave event. On SQLite and PostgreSQL.
import t from 'tap'
import { VALID } from '../../helpers/api.js'
import { listening, sala } from './support.js'

t.test('an agente receives only records in scope, and `fuera` when one is reassigned away', async (t) => {
  const { api, feed } = await listening(t)
  const agenteA = await api.userWithRole('agente', { personal_id: 'PER-2026-00011' })
  const agenteB = await api.userWithRole('agente', { personal_id: 'PER-2026-00012' })
  const streamA = await feed('?modulos=denuncias', agenteA.token)
  const streamB = await feed('?modulos=denuncias', agenteB.token)
  const theirs = await api.create('denuncias', { ...VALID['denuncias']!(), agente_asignado: 'PER-2026-00012' })
  const mine = await api.create('denuncias', { ...VALID['denuncias']!(), agente_asignado: 'PER-2026-00011' })
  const first = await streamA.next()
  t.equal(first.data.id, mine._id, "the other agente's denuncia (written first) never reached this stream")
  t.equal((await streamB.next()).data.id, theirs._id)
  const admin = await api.adminToken()
  const put = await api.request('PUT', `/denuncias/${mine._id}`, {
    token: admin,
    body: { agente_asignado: 'PER-2026-00012' },
  })
  t.equal(put.status, 200)
  const left = await streamA.next()
  t.equal(left.event, 'fuera')
  t.same(left.data, { modulo: 'denuncias', id: mine._id, accion: 'editar', version: 2 }, 'the id only, no values')
  const arrived = await streamB.next()
  t.equal(arrived.event, 'editar')
  t.equal(arrived.data.id, mine._id, 'the new assignee receives it')
  // A record created before the stream opened leaves too: the stream knows what was in view when it opened.
  const old = await api.create('denuncias', { ...VALID['denuncias']!(), agente_asignado: 'PER-2026-00011' })
  t.equal((await streamA.next()).data.id, old._id)
  const late = await feed('?modulos=denuncias', agenteA.token)
  await api.request('PUT', `/denuncias/${old._id}`, { token: admin, body: { agente_asignado: 'PER-2026-00012' } })
  t.match((await late.next()).data, { id: old._id }, 'a record in view at opening')
  t.equal(late.events[0]!.event, 'fuera')
})

t.test('list filters: a record that stops matching yields `fuera`; bad filters are 400', async (t) => {
  const { api, feed } = await listening(t)
  const admin = await api.adminToken()
  const stream = await feed('?modulos=sala092&estado=pendiente', admin)
  const created = await api.create('sala092', sala())
  t.equal((await stream.next()).event, 'crear')
  await api.request('PUT', `/sala092/${created._id}`, { token: admin, body: { estado: 'en_curso' } })
  const left = await stream.next()
  t.equal(left.event, 'fuera')
  t.equal(left.data.id, created._id)
  const bad = await feed('?modulos=sala092&color=rojo', admin)
  t.equal(bad.status, 400)
  t.match(bad.body.details, [{ field: 'color' }])
  const unknown = await feed('?modulos=sala093', admin)
  t.equal(unknown.status, 400)
  t.match(unknown.body.details, [{ field: 'modulos', message: "Módulo desconocido 'sala093'" }])
  const sorted = await feed('?modulos=sala092&sort=estado', admin)
  t.equal(sorted.status, 400)
  const anonymous = await feed('?modulos=sala092', undefined)
  t.equal(anonymous.status, 401)
})
