// Record scopes (D26): an agente sees and changes only the records of their scope,
// and the store applies it to every path: GET, list and total, filters and blind-index search,
// history, PUT and DELETE. Outside the scope a record is 404, its existence not revealed.
import t, { type Test } from 'tap'
import { startTestApi, VALID, type TestApi } from '../../helpers/api.js'

const A = 'PER-2026-00011'
const B = 'PER-2026-00012'
const NOT_FOUND = { success: false, error: 'Registro no encontrado' }

async function setup(t: Test) {
  const api = await startTestApi(t)
  const agenteA = await api.userWithRole('agente', { personal_id: A })
  const agenteB = await api.userWithRole('agente', { personal_id: B })
  const mine = await api.create('denuncias', {
    ...VALID['denuncias']!(),
    agente_asignado: A,
    denunciante_dni: '11111111A',
  })
  const theirs = await api.create('denuncias', {
    ...VALID['denuncias']!(),
    agente_asignado: B,
    denunciante_dni: '22222222B',
  })
  const unassigned = await api.create('denuncias', VALID['denuncias']!())
  return { api, agenteA, agenteB, mine, theirs, unassigned }
}

const ids = (reply: { body: any }): string[] => reply.body.data.records.map((r: any) => r._id).sort()

t.test('D26: an agente lists and counts only the denuncias assigned to them or created by them', async (t) => {
  const { api, agenteA, mine, theirs } = await setup(t)
  const created = await api.create('denuncias', VALID['denuncias']!(), agenteA.token)
  t.equal(created.agente_asignado, A, "an agente's new denuncia is assigned to their own personal_id")
  const list = await api.request('GET', '/denuncias', { token: agenteA.token })
  t.same(ids(list), [mine._id, created._id].sort())
  t.equal(list.body.data.total, 2, 'data.total counts only the records in scope')
  const filtered = await api.request('GET', '/denuncias?tipo=hurto&sort=-_created&limit=1', { token: agenteA.token })
  t.equal(filtered.body.data.total, 2, 'a filter and sort combine with the scope')
  t.equal(filtered.body.data.records.length, 1)
  const admin = await api.request('GET', '/denuncias', { token: await api.adminToken() })
  t.equal(admin.body.data.total, 4, 'superadmin is not scoped')
  t.notOk(ids(list).includes(theirs._id))
})

t.test('D26: outside the scope GET, history, PUT and DELETE are 404 and change nothing', async (t) => {
  const { api, agenteA, theirs } = await setup(t)
  for (const [method, path, body] of [
    ['GET', `/denuncias/${theirs._id}`, undefined],
    ['GET', `/denuncias/${theirs._id}/historial`, undefined],
    ['PUT', `/denuncias/${theirs._id}`, { estado: 'archivada' }],
  ] as const) {
    const reply = await api.request(method, path, { token: agenteA.token, body })
    t.equal(reply.status, 404, `${method} ${path}`)
    t.same(reply.body, NOT_FOUND)
  }
  const remove = await api.request('DELETE', `/denuncias/${theirs._id}`, { token: agenteA.token })
  t.same(
    remove.body,
    {
      success: false,
      error: 'Sin permisos para esta operación',
      details: [{ field: 'permiso', message: "El rol 'agente' no tiene el permiso 'denuncias.eliminar'" }],
    },
    'the 403 names the permission',
  )
  const after = await api.request('GET', `/denuncias/${theirs._id}`, { token: await api.adminToken() })
  t.equal(after.body.data._version, 1, 'the record is unchanged')
  t.equal(after.body.data.estado, 'pendiente')
})

t.test('D26: inside the scope the agente reads, edits and sees the history', async (t) => {
  const { api, agenteA, mine } = await setup(t)
  t.equal((await api.request('GET', `/denuncias/${mine._id}`, { token: agenteA.token })).status, 200)
  t.equal((await api.request('GET', `/denuncias/${mine._id}/historial`, { token: agenteA.token })).status, 200)
  const put = await api.request('PUT', `/denuncias/${mine._id}`, {
    token: agenteA.token,
    body: { estado: 'investigacion' },
  })
  t.equal(put.status, 200, JSON.stringify(put.body))
})

t.test('D16, D26: a blind-index search finds nothing outside the scope', async (t) => {
  const { api, agenteA } = await setup(t)
  const own = await api.request('GET', '/denuncias?denunciante_dni=11111111A', { token: agenteA.token })
  t.equal(own.body.data.total, 1)
  const other = await api.request('GET', '/denuncias?denunciante_dni=22222222B', { token: agenteA.token })
  t.equal(other.status, 200)
  t.equal(other.body.data.total, 0)
  t.same(other.body.data.records, [])
})

t.test('a user without personal_id sees, under a personal_id scope, only what they created', async (t) => {
  const { api } = await setup(t)
  const bare = await api.userWithRole('agente')
  const created = await api.create('denuncias', VALID['denuncias']!(), bare.token)
  t.equal(created.agente_asignado, null, 'no personal_id to assign')
  const list = await api.request('GET', '/denuncias', { token: bare.token })
  t.same(ids(list), [created._id])
  t.equal(list.body.data.total, 1)
})

t.test('oficial and jefe read every denuncia (docs/decisions.md, assigned cases)', async (t) => {
  const { api } = await setup(t)
  for (const role of ['oficial', 'jefe', 'consulta']) {
    const { token } = await api.userWithRole(role, { personal_id: A })
    t.equal((await api.request('GET', '/denuncias', { token })).body.data.total, 3, role)
  }
})

async function scopedModule(
  t: Test,
  api: TestApi,
  module: string,
  token: string,
  inScope: Record<string, unknown>[],
  outOfScope: Record<string, unknown>[],
) {
  const inside = await Promise.all(inScope.map((extra) => api.create(module, { ...VALID[module]!(), ...extra })))
  const outside = await Promise.all(outOfScope.map((extra) => api.create(module, { ...VALID[module]!(), ...extra })))
  const list = await api.request('GET', `/${module}`, { token })
  t.same(ids(list), inside.map((r) => r._id).sort(), `${module}: the list holds the records in scope`)
  t.equal(list.body.data.total, inside.length, `${module}: total`)
  for (const r of outside)
    t.equal(
      (await api.request('GET', `/${module}/${r._id}`, { token })).status,
      404,
      `${module}: ${String(r._id)} is 404`,
    )
}

t.test('D26: the shipped scopes of sanciones, atestados and turnos', async (t) => {
  const { api, agenteA } = await setup(t)
  await scopedModule(t, api, 'sanciones', agenteA.token, [{ agente_denunciante: A }], [{ agente_denunciante: B }, {}])
  await scopedModule(
    t,
    api,
    'turnos',
    agenteA.token,
    [{ agente_id: A }, { agente_id: B, compañero: A }],
    [{ agente_id: B }, { agente_id: B, compañero: 'PER-2026-00013' }],
  )
  await scopedModule(t, api, 'atestados', agenteA.token, [], [{}])
  const own = await api.create('atestados', VALID['atestados']!(), agenteA.token)
  t.same(ids(await api.request('GET', '/atestados', { token: agenteA.token })), [own._id], 'atestados they created')
  const sala = await api.create('sala092', VALID['sala092']!())
  t.equal(
    (await api.request('GET', `/sala092/${sala._id}`, { token: agenteA.token })).status,
    200,
    'sala092 stays readable (D21)',
  )
})
