// D41: legal holds (POST and DELETE /retencion/{module}/{id}/retener): put with a reference and
// a motivo, lifted with a motivo, each one audit entry; shown by the queue, the decisions and
// GET /retencion/{module}/{id}; a held record cannot be erased. Both databases.
import t from 'tap'
import { startTestApi, VALID, type Reply } from '../../helpers/api.js'
import { modulesWithScopedReviewer } from './support.js'

let now = new Date('2022-03-01T09:00:00Z')
const clock = () => now

const error = (reply: Reply) => ({ status: reply.status, success: reply.body.success, error: reply.body.error })

t.test('D41: a legal hold is put, shown, kept from erasure and lifted, each once and audited', async (t) => {
  const api = await startTestApi(t, { clock })
  const admin = await api.adminToken()
  const dpd = await api.userWithRole('dpd')
  const consulta = await api.userWithRole('consulta')
  const agente = await api.userWithRole('agente', { personal_id: 'PER-2022-00001' })
  const held = await api.create('denuncias', VALID['denuncias']!())
  const other = await api.create('denuncias', VALID['denuncias']!())
  const path = `/retencion/denuncias/${held._id}/retener`
  const hold = (body: unknown, token = dpd.token, at = path) => api.request('POST', at, { token, body })
  const lift = (body: unknown, token = dpd.token, at = path) => api.request('DELETE', at, { token, body })
  const trail = async () =>
    (await api.request('GET', `/auditoria?registro=${held._id}`, { token: admin })).body.data.entries.filter(
      (e: { action: string }) => ['retener', 'liberar', 'suprimir'].includes(e.action),
    )
  const status = async () =>
    (await api.request('GET', `/retencion/denuncias/${held._id}`, { token: dpd.token })).body.data

  t.test('bad input is a 4xx in the envelope and changes nothing', async (t) => {
    const before = await status()
    const noReference = await hold({ motivo: 'Juzgado' })
    t.same(error(noReference), { status: 400, success: false, error: 'Datos requeridos' })
    t.same(noReference.body.details, [{ field: 'referencia', message: "El campo 'referencia' es obligatorio" }])
    t.same(error(await hold({ referencia: 'DP 1/2022' })), { status: 400, success: false, error: 'Datos requeridos' })
    t.equal((await hold({ referencia: 'DP 1/2022', motivo: 'x', decision: 'y' })).status, 400, 'an unknown field')
    t.equal((await hold(['DP'])).status, 400, 'not an object')
    t.same(error(await lift({})), { status: 400, success: false, error: 'Datos requeridos' })
    const unheld = await lift({ motivo: 'Nada que levantar' })
    t.same(error(unheld), { status: 409, success: false, error: 'El registro no está retenido' })
    t.same(unheld.body.details, [
      { field: 'referencia', message: 'El registro no tiene ninguna retención legal que levantar' },
    ])
    const body = { referencia: 'DP 1/2022', motivo: 'Juzgado' }
    t.same(error(await hold(body, dpd.token, '/retencion/denuncias/DEN-2022-99999/retener')), {
      status: 404,
      success: false,
      error: 'Registro no encontrado',
    })
    t.equal((await hold(body, dpd.token, `/retencion/vehiculos/${held._id}/retener`)).status, 404, 'no retention')
    t.match(error(await hold(body, consulta.token)), { status: 403, error: 'Sin permisos para esta operación' })
    t.equal((await hold(body, agente.token)).status, 403, 'agente holds no retencion.decidir')
    t.equal((await api.request('POST', path, { body })).status, 401)
    t.same(await status(), before, 'the state is as it was')
    t.same(await trail(), [], 'no audit entry')
  })

  t.test(
    'POST .../retener: 200 with the state naming the reference; one entry with motivo and reference',
    async (t) => {
      const reply = await hold({ referencia: 'DP 1234/2022 Juzgado n.º 2', motivo: 'Requerido por el juzgado' })
      t.equal(reply.status, 200)
      t.match(reply.body.data, {
        module: 'denuncias',
        id: held._id,
        hold: 'DP 1234/2022 Juzgado n.º 2',
        blocked_at: null,
      })
      t.same(await status(), reply.body.data, 'GET /retencion/{module}/{id} answers the same state')
      t.match(await trail(), [
        {
          action: 'retener',
          user_id: dpd.id,
          motivo: 'Requerido por el juzgado',
          criteria: { referencia: 'DP 1234/2022 Juzgado n.º 2' },
        },
      ])
      const again = await hold({ referencia: 'DP 9/2022', motivo: 'Otro juzgado' })
      t.same(error(again), { status: 409, success: false, error: 'El registro ya está retenido' })
      t.same(again.body.details, [
        { field: 'referencia', message: "Ya lo retiene 'DP 1234/2022 Juzgado n.º 2': levántela antes de poner otra" },
      ])
      t.equal((await trail()).length, 1, 'the refused hold wrote nothing')
    },
  )

  t.test('the queue shows the reference of a held record due; the others show null', async (t) => {
    now = new Date('2025-03-02T09:00:00Z')
    const queue = await api.request('GET', '/retencion?module=denuncias', { token: dpd.token })
    t.same(
      queue.body.data.entries.map((e: { id: string; hold: string | null }) => [e.id, e.hold]),
      [
        [held._id, 'DP 1234/2022 Juzgado n.º 2'],
        [other._id, null],
      ],
    )
  })

  t.test('a hold does not keep a record from review or block; a decision answers the hold', async (t) => {
    const kept = await api.request('POST', `/retencion/denuncias/${held._id}`, {
      token: dpd.token,
      body: { decision: 'conservar', motivo: 'Sigue en instrucción' },
    })
    t.equal(kept.status, 200)
    t.equal(kept.body.data.hold, 'DP 1234/2022 Juzgado n.º 2')
  })

  t.test('suprimir of a held record: 409 Registro retenido naming the reference; nothing erased', async (t) => {
    const refused = await api.request('POST', `/retencion/denuncias/${held._id}`, {
      token: dpd.token,
      body: { decision: 'suprimir', motivo: 'Plazo cumplido' },
    })
    t.same(error(refused), { status: 409, success: false, error: 'Registro retenido' })
    t.same(refused.body.details, [
      {
        field: 'referencia',
        message: "Retenido por 'DP 1234/2022 Juzgado n.º 2': levante la retención antes de suprimirlo",
      },
    ])
    t.equal((await api.request('GET', `/denuncias/${held._id}`, { token: admin })).status, 200, 'still there')
    t.equal((await trail()).length, 1, 'no entry for the refused erasure')
  })

  t.test('DELETE .../retener lifts it (one entry naming the lifted reference); then suprimir passes', async (t) => {
    const lifted = await lift({ motivo: 'Sobreseimiento firme' })
    t.equal(lifted.status, 200)
    t.equal(lifted.body.data.hold, null)
    t.equal((await status()).hold, null)
    t.match((await trail())[1], {
      action: 'liberar',
      motivo: 'Sobreseimiento firme',
      criteria: { referencia: 'DP 1234/2022 Juzgado n.º 2' },
    })
    t.equal((await lift({ motivo: 'Otra vez' })).status, 409, 'nothing left to lift')
    const erased = await api.request('POST', `/retencion/denuncias/${held._id}`, {
      token: dpd.token,
      body: { decision: 'suprimir', motivo: 'Plazo cumplido' },
    })
    t.equal(erased.status, 200)
    t.same(error(await hold({ referencia: 'DP 5/2025', motivo: 'Tarde' })), {
      status: 404,
      success: false,
      error: 'Registro no encontrado',
    })
  })
})

t.test('D41: a reviewer with a record scope holds and lifts only within it (404 outside)', async (t) => {
  const api = await startTestApi(t, { env: { MODULES_FILE: modulesWithScopedReviewer(t) } })
  const agente = await api.userWithRole('agente', { personal_id: 'PER-2026-00001' })
  const mine = await api.create('denuncias', { ...VALID['denuncias']!(), agente_asignado: 'PER-2026-00001' })
  const theirs = await api.create('denuncias', { ...VALID['denuncias']!(), agente_asignado: 'PER-2026-00002' })
  const body = { referencia: 'DP 7/2026', motivo: 'Juzgado' }
  const hold = (id: string) => api.request('POST', `/retencion/denuncias/${id}/retener`, { token: agente.token, body })
  t.same(error(await hold(theirs._id)), { status: 404, success: false, error: 'Registro no encontrado' })
  t.same(
    error(
      await api.request('DELETE', `/retencion/denuncias/${theirs._id}/retener`, {
        token: agente.token,
        body: { motivo: 'x' },
      }),
    ),
    { status: 404, success: false, error: 'Registro no encontrado' },
  )
  t.equal((await api.request('GET', `/retencion/denuncias/${theirs._id}`, { token: agente.token })).status, 404)
  t.equal((await hold(mine._id)).status, 200)
  const state = await api.request('GET', `/retencion/denuncias/${mine._id}`, { token: agente.token })
  t.equal(state.body.data.hold, 'DP 7/2026')
  const admin = await api.adminToken()
  const theirState = await api.request('GET', `/retencion/denuncias/${theirs._id}`, { token: admin })
  t.equal(theirState.body.data.hold, null, 'the refused hold changed nothing')
})

t.test('D41: a deleted record (D10), whose values are still held, can be held, shown and lifted', async (t) => {
  const api = await startTestApi(t)
  const admin = await api.adminToken()
  const dpd = await api.userWithRole('dpd')
  const record = await api.create('denuncias', VALID['denuncias']!())
  t.equal((await api.request('DELETE', `/denuncias/${record._id}`, { token: admin })).status, 200)
  const path = `/retencion/denuncias/${record._id}`
  const held = await api.request('POST', `${path}/retener`, {
    token: dpd.token,
    body: { referencia: 'DP 77/2026', motivo: 'Requerido por el juzgado' },
  })
  t.equal(held.status, 200)
  t.equal(held.body.data.hold, 'DP 77/2026')
  t.equal((await api.request('GET', path, { token: dpd.token })).body.data.hold, 'DP 77/2026', 'its state is shown')
  const erase = () =>
    api.request('POST', path, { token: dpd.token, body: { decision: 'suprimir', motivo: 'Plazo cumplido' } })
  t.equal((await erase()).body.error, 'Registro retenido', 'the hold keeps it from erasure')
  const lifted = await api.request('DELETE', `${path}/retener`, { token: dpd.token, body: { motivo: 'Archivado' } })
  t.equal(lifted.status, 200)
  t.equal((await erase()).status, 200, 'then it is erased')
})
