// The live feed: one event per write, as each subscriber may see it. On SQLite and PostgreSQL.
import t from 'tap'
import { eventually } from '../protection/support.js'
import { listening, sala } from './support.js'

t.test('create, update, move and delete arrive as events with the audit seq as id', async (t) => {
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

t.test('D41: an erasure arrives as eliminar (accion suprimir) to whoever saw the record', async (t) => {
  const { api, feed } = await listening(t)
  const admin = await api.adminToken()
  const stream = await feed('?modulos=sala092', admin)
  const created = await api.create('sala092', sala())
  t.equal((await stream.next()).event, 'crear')
  const erased = await api.request('POST', `/retencion/sala092/${created._id}`, {
    token: admin,
    body: { decision: 'suprimir', motivo: 'Plazo cumplido' },
  })
  t.equal(erased.status, 200)
  const removed = await stream.next()
  t.equal(removed.event, 'eliminar')
  t.same(removed.data, { modulo: 'sala092', id: created._id, accion: 'suprimir', version: null })
})

t.test(
  'each subscriber sees the record masked as its own GET shows it, and the event is a logged consultation',
  async (t) => {
    const { api, feed } = await listening(t)
    const oficial = await api.userWithRole('oficial')
    const consulta = await api.userWithRole('consulta')
    const asOficial = await feed('?modulos=sala092', oficial.token)
    const asConsulta = await feed('?modulos=sala092', consulta.token)
    const asAdmin = await api.adminToken()
    const created = await api.create('sala092', { ...sala(), numero_llamada: '600333444' })
    const seen = (await asOficial.next('crear')).data.registro
    const masked = (await asConsulta.next('crear')).data.registro
    t.equal(seen.numero_llamada, '600333444', 'descifrar: decrypted')
    t.not(masked.numero_llamada, '600333444', 'no descifrar: masked')
    const asGet = await api.request('GET', `/sala092/${created._id}`, { token: consulta.token })
    t.same(masked, asGet.body.data, "the event's record is what that subscriber's GET answers")
    // Read audits are written in batches: wait for the one that holds the event's entry.
    const consulted = await eventually(
      () =>
        api.request('GET', `/auditoria?registro=${created._id}&accion=consultar&usuario=${oficial.id}`, {
          token: asAdmin,
        }),
      (reply) => reply.body.data.entries.length > 0,
    )
    t.match(
      consulted.body.data.entries,
      [{ user_id: oficial.id, fields: ['numero_llamada'] }],
      'the event revealed the number: logged',
    )
    const unrevealed = await api.request(
      'GET',
      `/auditoria?registro=${created._id}&accion=consultar&usuario=${consulta.id}`,
      {
        token: asAdmin,
      },
    )
    // sala092 holds personal data: every read is a consultation, but a masked one names no encrypted field.
    t.ok(
      unrevealed.body.data.entries.every((e: { fields: string[] }) => !e.fields.includes('numero_llamada')),
      'a masked event reveals no encrypted value',
    )
  },
)
