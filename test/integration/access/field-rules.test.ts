// Field rules (D27): a field a role cannot read is absent from its answers (not
// masked), cannot be filtered or sorted on; a field it cannot write is a 403 naming the field
// that changes nothing; a role's defaults fill fields from the acting user.
import t from 'tap'
import { startTestApi, VALID } from '../../helpers/api.js'

t.test('D27: consulta does not see observaciones of denuncias, in GET, list or filter', async (t) => {
  const api = await startTestApi(t)
  const record = await api.create('denuncias', { ...VALID['denuncias']!(), observaciones: 'Nota interna' })
  const { token } = await api.userWithRole('consulta')
  const one = await api.request('GET', `/denuncias/${record._id}`, { token })
  t.equal(one.status, 200)
  t.notOk('observaciones' in one.body.data, 'absent, not masked')
  t.equal(one.body.data.descripcion, record.descripcion, 'the other fields are there')
  const list = await api.request('GET', '/denuncias', { token })
  t.notOk(list.body.data.records.some((r: object) => 'observaciones' in r))
  const filter = await api.request('GET', '/denuncias?observaciones=Nota%20interna', { token })
  t.same(
    filter.body,
    {
      success: false,
      error: 'Sin permisos para esta operación',
      details: [
        { field: 'observaciones', message: "El rol 'consulta' no puede leer el campo 'observaciones' (cannot_read)" },
      ],
    },
    'filtering on it would reveal it through the total',
  )
  const admin = await api.request('GET', `/denuncias/${record._id}`, { token: await api.adminToken() })
  t.equal(admin.body.data.observaciones, 'Nota interna', 'other roles still read it')
})

t.test('D27: an agente cannot write agente_asignado: 403 naming the field, nothing written', async (t) => {
  const api = await startTestApi(t)
  const agente = await api.userWithRole('agente', { personal_id: 'PER-2026-00011' })
  const refused = {
    success: false,
    error: 'Sin permisos para esta operación',
    details: [
      {
        field: 'agente_asignado',
        message: "El rol 'agente' no puede escribir el campo 'agente_asignado' (cannot_write)",
      },
    ],
  }
  const before = (await api.request('GET', '/denuncias', { token: await api.adminToken() })).body.data.total
  const post = await api.request('POST', '/denuncias', {
    token: agente.token,
    body: { ...VALID['denuncias']!(), agente_asignado: 'PER-2026-00012' },
  })
  t.equal(post.status, 403)
  t.same(post.body, refused)
  t.equal(
    (await api.request('GET', '/denuncias', { token: await api.adminToken() })).body.data.total,
    before,
    'nothing created',
  )
  const own = await api.create('denuncias', VALID['denuncias']!(), agente.token)
  t.equal(own.agente_asignado, 'PER-2026-00011', 'filled from their personal_id')
  const put = await api.request('PUT', `/denuncias/${own._id}`, {
    token: agente.token,
    body: { agente_asignado: 'PER-2026-00012', lugar_hechos: 'Otro' },
  })
  t.equal(put.status, 403)
  t.same(put.body, refused)
  const after = await api.request('GET', `/denuncias/${own._id}`, { token: agente.token })
  t.equal(after.body.data._version, 1, 'nothing changed')
  t.equal(after.body.data.lugar_hechos, own.lugar_hechos)
  const oficial = await api.userWithRole('oficial')
  await api.seedTargets({ agente_asignado: 'PER-2026-00012' }, 'denuncias') // a live personal record
  const reassigned = await api.request('PUT', `/denuncias/${own._id}`, {
    token: oficial.token,
    body: { agente_asignado: 'PER-2026-00012' },
  })
  t.equal(reassigned.status, 200, 'an oficial assigns cases')
  t.equal(
    (await api.request('GET', `/denuncias/${own._id}`, { token: agente.token })).status,
    200,
    'reassigned, still theirs: they created it',
  )
})

t.test("F10: an agente cannot plant a sanción in another officer's scope through agente_denunciante", async (t) => {
  const api = await startTestApi(t)
  const admin = await api.adminToken()
  const agenteA = await api.userWithRole('agente', { personal_id: 'PER-2026-00011' })
  const agenteB = await api.userWithRole('agente', { personal_id: 'PER-2026-00012' })
  await api.seedTargets({ agente_denunciante: 'PER-2026-00012' }, 'sanciones') // a live personal record
  const planted = await api.request('POST', '/sanciones', {
    token: agenteA.token,
    body: { ...VALID['sanciones']!(), agente_denunciante: 'PER-2026-00012' },
  })
  t.equal(planted.status, 403)
  t.same(planted.body, {
    success: false,
    error: 'Sin permisos para esta operación',
    details: [
      {
        field: 'agente_denunciante',
        message: "El rol 'agente' no puede escribir el campo 'agente_denunciante' (cannot_write)",
      },
    ],
  })
  t.equal((await api.request('GET', '/sanciones', { token: admin })).body.data.total, 0, 'nothing created')
  t.equal((await api.request('GET', '/sanciones', { token: agenteB.token })).body.data.total, 0, "nothing in B's scope")
  const own = await api.create('sanciones', VALID['sanciones']!(), agenteA.token)
  t.equal(own.agente_denunciante, 'PER-2026-00011', 'the reporting officer is the agente who creates it')
  t.equal((await api.request('GET', `/sanciones/${own._id}`, { token: agenteB.token })).status, 404)
  const put = await api.request('PUT', `/sanciones/${own._id}`, {
    token: agenteA.token,
    body: { agente_denunciante: 'PER-2026-00012' },
  })
  t.equal(put.status, 403, 'nor by an update')
  const oficial = await api.userWithRole('oficial')
  const byOficial = await api.request('POST', '/sanciones', {
    token: oficial.token,
    body: { ...VALID['sanciones']!(), agente_denunciante: 'PER-2026-00012' },
  })
  t.equal(byOficial.status, 201, 'an oficial records a sanción reported by any officer')
  t.equal((await api.request('GET', '/sanciones', { token: agenteB.token })).body.data.total, 1)
})
