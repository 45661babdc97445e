// The live feed: tickets, stream caps, and a stream ended by its token. On SQLite and PostgreSQL.
import t from 'tap'
import { VALID } from '../../helpers/api.js'
import { listening, sala } from './support.js'

t.test('a ticket opens one stream once, within its life; the bearer never goes in the URL', async (t) => {
  let now = Date.parse('2026-11-23T10:00:00Z')
  const { api, feed } = await listening(t, {}, () => new Date(now))
  const admin = await api.adminToken()
  const issued = await api.request('POST', '/eventos/ticket', { token: admin })
  t.equal(issued.status, 201)
  t.equal(issued.body.data.caduca, '2026-11-23 11:00:30', 'in the service time format and zone (D9)')
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

t.test('open streams are capped per user (429), and a revoked token or disabled user ends its stream', async (t) => {
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
})

t.test('a role that loses a module it follows ends the stream, saying so', async (t) => {
  const { api, feed } = await listening(t)
  const admin = await api.adminToken()
  const user = await api.userWithRole('consulta')
  // consulta justifies reading personal (F3: the motivo rule applies to the feed too).
  const stream = await feed('?modulos=personal', user.token, { 'x-motivo': 'Cuadrante de servicio' })
  t.equal(stream.status, 200)
  const put = await api.request('PUT', `/usuarios/${user.id}`, { token: admin, body: { rol: 'agente' } })
  t.equal(put.status, 200, JSON.stringify(put.body))
  await api.create('personal', VALID['personal']!())
  const closing = await stream.next()
  t.equal(closing.event, 'cerrado')
  t.equal(closing.data.mensaje, "El rol 'agente' ya no tiene el permiso 'personal.ver'")
  await stream.ended
})

t.test(
  'D16: a role that may no longer filter by an encrypted field ends the stream that does, saying so',
  async (t) => {
    const { api, feed } = await listening(t)
    const admin = await api.adminToken()
    const user = await api.userWithRole('oficial')
    const dni = '12345678Z'
    const stream = await feed(`?modulos=denuncias&denunciante_dni=${dni}`, user.token)
    t.equal(stream.status, 200, 'oficial holds denuncias.descifrar: the blind index may be asked')
    // consulta reads denuncias but does not decrypt them: it could not open this feed now.
    const put = await api.request('PUT', `/usuarios/${user.id}`, { token: admin, body: { rol: 'consulta' } })
    t.equal(put.status, 200, JSON.stringify(put.body))
    await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: dni })
    const closing = await stream.next()
    t.equal(closing.event, 'cerrado', 'no event of a record found by a value it may no longer ask')
    t.equal(
      closing.data.mensaje,
      "El rol 'consulta' ya no puede filtrar 'denuncias' así: El rol 'consulta' no tiene el permiso 'denuncias.descifrar'",
    )
    await stream.ended
  },
)
