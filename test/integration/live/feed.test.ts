// The live feed (issue #16 item 5): GET /eventos over a real socket, on SQLite and PostgreSQL.
import t, { type Test } from 'tap'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ADMIN, ON_POSTGRES, REPO_MODULES, startTestApi, VALID } from '../../helpers/api.js'
import { runRecords } from '../../helpers/records-cli.js'
import { eventually } from '../protection/support.js'
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

t.test(
  '#16: each subscriber sees the record masked as its own GET shows it, and the event is a logged consultation',
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
    t.equal(unrevealed.body.data.entries.length, 0, 'a masked event reveals nothing: not a consultation')
  },
)

t.test('#16, #14: an agente receives only records in scope, and `fuera` when one is reassigned away', async (t) => {
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

t.test('#16: list filters: a record that stops matching yields `fuera`; bad filters are 400', async (t) => {
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

t.test('#16: Last-Event-ID resumes without losing an event; too old a point gets `recargar`', async (t) => {
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

t.test('#16: a ticket opens one stream once, within its life; the bearer never goes in the URL', async (t) => {
  let now = Date.parse('2026-11-23T10:00:00Z')
  const { api, feed } = await listening(t, {}, () => new Date(now))
  const admin = await api.adminToken()
  const issued = await api.request('POST', '/eventos/ticket', { token: admin })
  t.equal(issued.status, 201)
  t.equal(issued.body.data.caduca, '2026-11-23T10:00:30.000Z')
  const ticket = issued.body.data.ticket as string
  const stream = await feed(`?modulos=sala092&ticket=${ticket}`, undefined)
  t.equal(stream.status, 200)
  const created = await api.create('sala092', sala())
  t.equal((await stream.next()).data.id, created._id)
  const again = await feed(`?modulos=sala092&ticket=${ticket}`, undefined)
  t.equal(again.status, 401, 'single use')
  t.equal(again.body.error, 'Vale de eventos inválido, caducado o ya usado')
  const late = (await api.request('POST', '/eventos/ticket', { token: admin })).body.data.ticket as string
  now += 31_000
  const expired = await feed(`?modulos=sala092&ticket=${late}`, undefined)
  t.equal(expired.status, 401, 'expired after 30 s')
  t.equal((await feed('?modulos=sala092&ticket=nope', undefined)).status, 401)
  t.equal((await api.request('POST', '/eventos/ticket')).status, 401, 'a ticket needs the bearer token')
})

t.test(
  '#16: open streams are capped per user (429), and a revoked token or disabled user ends its stream',
  async (t) => {
    const { api, feed } = await listening(t, { EVENT_STREAMS_PER_USER: '2' })
    const admin = await api.adminToken()
    const user = await api.userWithRole('oficial')
    await feed('?modulos=sala092', user.token)
    const second = await feed('?modulos=sala092', user.token)
    const third = await feed('?modulos=sala092', user.token)
    t.equal(third.status, 429)
    t.equal(third.body.error, 'Demasiados flujos de eventos abiertos')
    t.match(third.body.details[0].message, /máximo 2/)
    t.equal((await feed('?modulos=sala092', admin)).status, 200, 'another user is not affected')
    t.equal((await api.request('POST', '/auth/logout', { token: user.token })).status, 200)
    await api.create('sala092', sala())
    const closing = await second.next()
    t.equal(closing.event, 'cerrado', 'the next event finds the token revoked')
    await second.ended
    const other = await api.userWithRole('oficial')
    const stream = await feed('?modulos=sala092', other.token)
    const put = await api.request('PUT', `/usuarios/${other.id}`, { token: admin, body: { activo: false } })
    t.equal(put.status, 200, JSON.stringify(put.body))
    await api.create('sala092', sala())
    t.equal((await stream.next()).event, 'cerrado', 'a disabled user')
  },
)

t.test(
  '#16: a change made by another process reaches the subscriber',
  { skip: ON_POSTGRES && 'SQLite: the CLI on the same file' },
  async (t) => {
    const { api, feed } = await listening(t)
    const stream = await feed('?modulos=sala092', await api.adminToken())
    const file = join(api.dataDir, 'sala.jsonl')
    writeFileSync(file, `${JSON.stringify({ ...sala(), descripcion: 'Desde la línea de órdenes' })}\n`)
    const run = await runRecords(
      {
        DATA_DIR: api.dataDir,
        MODULES_FILE: REPO_MODULES,
        ADMIN_USERNAME: ADMIN.username,
        ADMIN_PASSWORD: ADMIN.password,
      },
      ['import', 'sala092', file, '--format', 'jsonl', '--new-ids'],
    )
    t.equal(run.status, 0, run.stderr)
    const event = await stream.next()
    t.equal(event.event, 'crear')
    t.equal(event.data.accion, 'importar')
    t.equal(event.data.registro.descripcion, 'Desde la línea de órdenes')
  },
)

t.test(
  '#16: a write on a second instance reaches a subscriber of the first',
  { skip: !ON_POSTGRES && 'PostgreSQL: two instances on one database' },
  async (t) => {
    const { api, feed } = await listening(t)
    const second = await startTestApi(t, { dataDir: api.dataDir, keepDir: true })
    const stream = await feed('?modulos=sala092', await api.adminToken())
    const created = await second.create('sala092', sala())
    const event = await stream.next()
    t.equal(event.data.id, created._id)
  },
)
