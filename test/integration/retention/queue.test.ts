// D41: the retention queue (GET /retencion) and the conservar decision (POST /retencion/{module}/{id})
// on the shipped modules.yaml, with agente also holding retencion.* to show that record scopes
// apply; a manual clock moves the years. Both databases.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { REPO_MODULES, startTestApi, VALID, type Reply, type TestApi } from '../../helpers/api.js'

const AGENTE_PERMISSIONS = '  agente:\n    description: Operaciones básicas en su ámbito.\n    permissions:\n'

/** The shipped file with agente also on the retention queue (scoped by access.agente.scope). */
function modulesWithScopedReviewer(): string {
  const dir = mkdtempSync(join(tmpdir(), 'records-retention-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const shipped = readFileSync(REPO_MODULES, 'utf8')
  if (!shipped.includes(AGENTE_PERMISSIONS)) throw new Error('the agente role moved in modules.yaml')
  const file = join(dir, 'modules.yaml')
  writeFileSync(file, shipped.replace(AGENTE_PERMISSIONS, `${AGENTE_PERMISSIONS}      - retencion.*\n`))
  return file
}

let now = new Date('2022-03-01T09:00:00Z') // 10:00 in Madrid
const clock = () => now

interface Due {
  readonly module: string
  readonly id: string
}
/** The test's accounts fall due too (usuarios: three years from creation); these tests are about the others. */
const withoutAccounts = (entries: readonly Due[]): Due[] => entries.filter((e) => e.module !== 'usuarios')

const error = (reply: Reply) => ({ status: reply.status, success: reply.body.success, error: reply.body.error })

t.test('D41: the queue, scopes, conservar and its audit entry', async (t) => {
  const api: TestApi = await startTestApi(t, { clock, env: { MODULES_FILE: modulesWithScopedReviewer() } })
  const admin = await api.adminToken()
  const dpd = await api.userWithRole('dpd')
  const agente = await api.userWithRole('agente', { personal_id: 'PER-2022-00001' })
  const consulta = await api.userWithRole('consulta')
  const mine = await api.create('denuncias', { ...VALID['denuncias']!(), agente_asignado: 'PER-2022-00001' })
  const theirs = await api.create('denuncias', { ...VALID['denuncias']!(), agente_asignado: 'PER-2022-00002' })
  const sancion = await api.create('sanciones', { ...VALID['sanciones']!(), fecha_infraccion: '2019-01-01 00:00:00' })
  const queue = async (token: string, query = '') => api.request('GET', `/retencion${query}`, { token })

  t.test('in 2022 only the sanción is due: one year after fecha_infraccion', async (t) => {
    const reply = await queue(dpd.token)
    t.equal(reply.status, 200)
    t.same(reply.body.data, {
      entries: [
        { module: 'sanciones', id: sancion._id, due_since: '2020-01-01 00:00:00', reason: 'revision', hold: null },
      ],
      total: 1,
    })
  })

  t.test('three years after their creation the denuncias are due; the sanción passed its longest keep', async (t) => {
    now = new Date('2025-03-02T09:00:00Z')
    const reply = await queue(dpd.token)
    t.same(withoutAccounts(reply.body.data.entries), [
      { module: 'sanciones', id: sancion._id, due_since: '2024-01-01 00:00:00', reason: 'plazo_maximo', hold: null },
      { module: 'denuncias', id: mine._id, due_since: '2025-03-01 10:00:00', reason: 'revision', hold: null },
      { module: 'denuncias', id: theirs._id, due_since: '2025-03-01 10:00:00', reason: 'revision', hold: null },
    ])
    t.same(
      (await queue(dpd.token, '?module=denuncias&limit=1&offset=1')).body.data,
      { entries: [withoutAccounts(reply.body.data.entries)[2]], total: 2 },
      '?module= and a page',
    )
  })

  t.test('a reviewer with a record scope sees and decides only within it (404 outside)', async (t) => {
    t.same(
      (await queue(agente.token, '?module=denuncias')).body.data.entries.map((e: { id: string }) => e.id),
      [mine._id],
    )
    const outside = await api.request('POST', `/retencion/denuncias/${theirs._id}`, {
      token: agente.token,
      body: { decision: 'conservar', motivo: 'Sigue abierta' },
    })
    t.same(error(outside), { status: 404, success: false, error: 'Registro no encontrado' })
  })

  t.test('bad input is a 4xx in the envelope and changes nothing', async (t) => {
    const before = (await queue(dpd.token)).body.data
    const trail = async () =>
      (await api.request('GET', '/auditoria?accion=conservar', { token: admin })).body.data.total as number
    const entries = await trail()
    const decide = (path: string, body: unknown, token = dpd.token) =>
      api.request('POST', `/retencion/${path}`, { token, body })
    t.same(error(await queue(dpd.token, '?module=nada')), {
      status: 400,
      success: false,
      error:
        "Datos inválidos: Módulo desconocido o sin conservación declarada (retention): 'nada'; módulos: denuncias, sanciones, atestados, personal, sala092, turnos, usuarios",
    })
    t.equal((await queue(dpd.token, '?module=vehiculos')).status, 400, 'a module without retention')
    t.equal((await queue(dpd.token, '?modulo=denuncias')).status, 400, 'an unknown parameter')
    const noMotivo = await decide(`denuncias/${mine._id}`, { decision: 'conservar' })
    t.same(error(noMotivo), { status: 400, success: false, error: 'Datos requeridos' })
    t.same(noMotivo.body.details, [{ field: 'motivo', message: "El campo 'motivo' es obligatorio" }])
    t.equal((await decide(`denuncias/${mine._id}`, { decision: 'conservar', motivo: '  ' })).status, 400, 'blank')
    const unknown = await decide(`denuncias/${mine._id}`, { decision: 'archivar', motivo: 'x' })
    t.same(error(unknown), {
      status: 400,
      success: false,
      error: "Datos inválidos: Decisión desconocida 'archivar': use conservar, bloquear, desbloquear, suprimir",
    })
    t.equal((await decide(`denuncias/${mine._id}`, { decision: 'conservar', motivo: 'x', extra: 1 })).status, 400)
    t.equal((await decide(`denuncias/${mine._id}`, ['conservar'])).status, 400, 'not an object')
    t.same(error(await decide('denuncias/DEN-2022-99999', { decision: 'conservar', motivo: 'x' })), {
      status: 404,
      success: false,
      error: 'Registro no encontrado',
    })
    t.equal((await decide(`nada/${mine._id}`, { decision: 'conservar', motivo: 'x' })).status, 404)
    t.equal((await decide(`vehiculos/VEH-2022-00001`, { decision: 'conservar', motivo: 'x' })).status, 404)
    const forbidden = 'Sin permisos para esta operación'
    t.match(error(await queue(consulta.token)), { status: 403, error: forbidden })
    t.match(error(await decide(`denuncias/${mine._id}`, { decision: 'conservar', motivo: 'x' }, consulta.token)), {
      status: 403,
      error: forbidden,
    })
    t.equal((await api.request('GET', '/retencion')).status, 401)
    t.same((await queue(dpd.token)).body.data, before, 'the queue is as it was')
    t.equal(await trail(), entries, 'no audit entry')
  })

  t.test('conservar: 200 with the new state, the next review from now, one audit entry with the motivo', async (t) => {
    const reply = await api.request('POST', `/retencion/denuncias/${mine._id}`, {
      token: dpd.token,
      body: { decision: 'conservar', motivo: 'Diligencias abiertas en el juzgado' },
    })
    t.equal(reply.status, 200)
    t.same(reply.body, {
      success: true,
      data: {
        module: 'denuncias',
        id: mine._id,
        from: '2022-03-01 10:00:00',
        reviewed_at: '2025-03-02 10:00:00',
        reviewed_by: dpd.id,
        next_due: '2028-03-02 10:00:00',
        keep_until: null,
        blocked_at: null,
        blocked_by: null,
        due_since: null,
        reason: null,
        hold: null,
      },
    })
    const ids = withoutAccounts((await queue(dpd.token)).body.data.entries).map((e) => e.id)
    t.same(ids, [sancion._id, theirs._id], 'it left the queue')
    const trail = await api.request('GET', '/auditoria?accion=conservar', { token: admin })
    t.equal(trail.body.data.total, 1)
    t.match(trail.body.data.entries[0], {
      action: 'conservar',
      module: 'denuncias',
      record_id: mine._id,
      user_id: dpd.id,
      motivo: 'Diligencias abiertas en el juzgado',
      at: '2025-03-02 10:00:00.000',
    })
    const history = await api.request('GET', `/denuncias/${mine._id}/historial`, { token: admin })
    t.equal(history.status, 200)
    t.match(
      history.body.data.entries.find((e: { action: string }) => e.action === 'conservar'),
      { record_id: mine._id, motivo: 'Diligencias abiertas en el juzgado' },
      "an auditor sees the review in the record's history",
    )
    const agenteHistory = await api.request('GET', `/denuncias/${mine._id}/historial`, { token: agente.token })
    t.notOk(
      agenteHistory.body.data.entries.some((e: { action: string }) => e.action === 'conservar'),
      'a reader without auditoria.ver sees its changes only',
    )
    now = new Date('2028-03-02T09:00:00Z')
    t.match((await queue(dpd.token, '?module=denuncias')).body.data.entries, [
      { id: theirs._id, due_since: '2025-03-01 10:00:00' },
      { id: mine._id, due_since: '2028-03-02 10:00:00', reason: 'revision' },
    ])
    now = new Date('2025-03-02T09:00:00Z')
  })

  t.test('conservar does not lift a longest keep that has passed: the sanción stays due', async (t) => {
    const reply = await api.request('POST', `/retencion/sanciones/${sancion._id}`, {
      token: dpd.token,
      body: { decision: 'conservar', motivo: 'Recurso contencioso pendiente' },
    })
    t.equal(reply.status, 200)
    t.match(reply.body.data, {
      keep_until: '2024-01-01 00:00:00',
      due_since: '2024-01-01 00:00:00',
      reason: 'plazo_maximo',
    })
    t.ok(
      (await queue(dpd.token, '?module=sanciones')).body.data.entries.some((e: { id: string }) => e.id === sancion._id),
    )
  })

  t.test('bloquear takes a record out of the queue; desbloquear puts it back; 409 against its block', async (t) => {
    const decide = (decision: string, motivo = `Motivo de ${decision}`) =>
      api.request('POST', `/retencion/denuncias/${theirs._id}`, { token: dpd.token, body: { decision, motivo } })
    const listed = async () =>
      (await queue(dpd.token, '?module=denuncias')).body.data.entries.some((e: Due) => e.id === theirs._id)
    t.ok(await listed(), 'due before')
    t.same(error(await decide('desbloquear')), { status: 409, success: false, error: 'El registro no está bloqueado' })
    const blocked = await decide('bloquear', 'Fin de la necesidad policial; pendiente de supresión')
    t.equal(blocked.status, 200)
    t.match(blocked.body.data, {
      id: theirs._id,
      blocked_at: '2025-03-02 10:00:00',
      blocked_by: dpd.id,
      due_since: null,
      reason: null,
    })
    t.notOk(await listed(), 'a blocked record leaves the queue')
    const again = await decide('bloquear')
    t.same(error(again), { status: 409, success: false, error: 'El registro está bloqueado' })
    t.same(again.body.details, [
      { field: 'decision', message: "'bloquear' no se aplica a un registro bloqueado: desbloquéelo antes" },
    ])
    t.equal((await decide('conservar')).status, 409, 'no review of a blocked record')
    t.equal(
      (await api.request('GET', `/denuncias/${theirs._id}`, { token: admin })).status,
      403,
      'a blocked record is not read (blocking.test.ts has the rest)',
    )
    const unblocked = await decide('desbloquear', 'Reabierta por el juzgado')
    t.equal(unblocked.status, 200)
    t.equal((await api.request('GET', `/denuncias/${theirs._id}`, { token: admin })).status, 200, 'read again')
    t.match(unblocked.body.data, { blocked_at: null, blocked_by: null, reason: 'revision' })
    t.ok(await listed(), 'back in the queue, due as before')
    const trail = await api.request('GET', `/auditoria?registro=${theirs._id}`, { token: admin })
    t.same(
      trail.body.data.entries
        .filter((e: { action: string }) => ['bloquear', 'desbloquear', 'conservar'].includes(e.action))
        .map((e: { action: string; motivo: string }) => [e.action, e.motivo]),
      [
        ['bloquear', 'Fin de la necesidad policial; pendiente de supresión'],
        ['desbloquear', 'Reabierta por el juzgado'],
      ],
      'one entry per decision applied, none for the refused ones',
    )
  })
})

t.test('D41: from estado:<state> counts from when the record entered the state', async (t) => {
  now = new Date('2020-06-01T08:00:00Z')
  const api = await startTestApi(t, { clock })
  const admin = await api.adminToken()
  const dpd = await api.userWithRole('dpd')
  const person = await api.create('personal', VALID['personal']!())
  const serving = await api.create('personal', VALID['personal']!())
  now = new Date('2021-06-01T08:00:00Z')
  const retired = await api.request('PUT', `/personal/${person._id}`, { token: admin, body: { situacion: 'jubilado' } })
  t.equal(retired.status, 200)
  now = new Date('2025-06-02T08:00:00Z')
  const reply = await api.request('GET', '/retencion?module=personal', { token: dpd.token })
  t.same(reply.body.data.entries, [
    { module: 'personal', id: person._id, due_since: '2025-06-01 10:00:00', reason: 'revision', hold: null },
  ])
  t.notOk(
    reply.body.data.entries.some((e: { id: string }) => e.id === serving._id),
    'serving staff are never due',
  )
})

t.test('D41: a reviewed record is due from its review even when its date moved later', async (t) => {
  now = new Date('2025-03-02T09:00:00Z')
  const api = await startTestApi(t, { clock })
  const admin = await api.adminToken()
  const dpd = await api.userWithRole('dpd')
  const fine = await api.create('sanciones', { ...VALID['sanciones']!(), fecha_infraccion: '2024-01-01 00:00:00' })
  const kept = await api.request('POST', `/retencion/sanciones/${fine._id}`, {
    token: dpd.token,
    body: { decision: 'conservar', motivo: 'Pendiente de cobro' },
  })
  t.match(kept.body.data, { reviewed_at: '2025-03-02 10:00:00', next_due: '2026-03-02 10:00:00' })
  const moved = await api.request('PUT', `/sanciones/${fine._id}`, {
    token: admin,
    body: { fecha_infraccion: '2027-01-01 00:00:00' },
  })
  t.equal(moved.status, 200)
  now = new Date('2026-03-05T09:00:00Z')
  t.same((await api.request('GET', '/retencion?module=sanciones', { token: dpd.token })).body.data.entries, [
    { module: 'sanciones', id: fine._id, due_since: '2026-03-02 10:00:00', reason: 'revision', hold: null },
  ])
})
