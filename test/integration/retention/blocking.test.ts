// D41: a blocked record (POST /retencion/{module}/{id} `bloquear`) is out of every list, total,
// text search, filter, export, `expand` and the live feed, for everyone; GET, history and past
// versions answer 403 `Registro bloqueado` (404 first outside the caller's scope) but to a role
// holding `{module}.bloqueados` that gives X-Motivo (a logged consultation); edits, workflow
// moves and deletes are 403 for everyone until `desbloquear`. On the shipped modules.yaml with a
// role `custodio` that names `denuncias.bloqueados` and `personal.bloqueados`. Both databases.
import t from 'tap'
import { ADMIN, databaseEnv, VALID, type Reply, type TestApi } from '../../helpers/api.js'
import { runRecords } from '../../helpers/records-cli.js'
import { listening } from '../live/support.js'
import { modulesWithCustodian } from './support.js'
import { auditRows, eventually } from '../protection/support.js'

const error = (reply: Reply) => ({ status: reply.status, success: reply.body.success, error: reply.body.error })
const ids = (reply: Reply): string[] => (reply.body.data.records as { _id: string }[]).map((r) => r._id)

async function exportIds(api: TestApi, modules: string, args: readonly string[] = []) {
  const env = {
    DATA_DIR: api.dataDir,
    MODULES_FILE: modulesFile,
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
    RECORDS_ENCRYPTION_KEY: '',
    RECORDS_ENCRYPTION_OLD_KEYS: '',
    ...(await databaseEnv(api.dataDir)),
  }
  const run = await runRecords(env, [
    'export',
    '--destinatario',
    'Juzgado de Instrucción n.º 2',
    '--motivo',
    'Diligencias previas 7/2026',
    '--format',
    'jsonl',
    modules,
    ...args,
  ])
  const records = run.stdout
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => String((JSON.parse(l) as Record<string, unknown>)['_id']))
  return { status: run.status, stderr: run.stderr, records }
}

let modulesFile = ''

t.test('D41: a blocked record is out of every path, read by bloqueados with a motivo, never written', async (t) => {
  modulesFile = modulesWithCustodian(t)
  // Listening: the live feed is a real stream.
  const { api, feed } = await listening(t, { MODULES_FILE: modulesFile })
  const admin = await api.adminToken()
  const dpd = await api.userWithRole('dpd')
  const agente = await api.userWithRole('agente', { personal_id: 'PER-2026-00011' })
  const custodio = await api.userWithRole('custodio')
  await api.seedTargets({ agente_asignado: 'PER-2026-00012' }, 'denuncias')
  const mine = await api.create('denuncias', {
    ...VALID['denuncias']!(),
    agente_asignado: 'PER-2026-00011',
    denunciante_dni: '12345678Z',
    lugar_hechos: 'Callejón del Gato',
    tipo: 'robo',
  })
  const theirs = await api.create('denuncias', { ...VALID['denuncias']!(), agente_asignado: 'PER-2026-00012' })
  const open = await api.create('denuncias', { ...VALID['denuncias']!(), agente_asignado: 'PER-2026-00011' })
  const block = (module: string, id: string, decision = 'bloquear') =>
    api.request('POST', `/retencion/${module}/${id}`, {
      token: dpd.token,
      body: { decision, motivo: `Fin de plazo: ${decision}` },
    })
  const list = (token: string, query = '') => api.request('GET', `/denuncias?limit=100${query}`, { token })
  const before = { admin: await list(admin), agente: await list(agente.token) }
  t.ok(ids(before.admin).includes(mine._id) && ids(before.agente).includes(mine._id), 'listed before the block')
  // Where the live feed will resume from: just before the blocked record was created.
  const created = await api.request('GET', `/auditoria?registro=${mine._id}&accion=crear`, { token: admin })
  const resumeFrom = Number(created.body.data.entries[0].seq) - 1

  t.equal((await block('denuncias', mine._id)).status, 200)

  t.test('lists, totals, text search, filters, sort and fields= leave it out, for everyone', async (t) => {
    for (const [who, token] of [
      ['superadmin', admin],
      ['agente', agente.token],
      ['custodio (bloqueados)', custodio.token],
    ] as const) {
      const all = await list(token)
      t.notOk(ids(all).includes(mine._id), `${who}: list`)
      t.equal(all.body.data.total, all.body.data.records.length, `${who}: the total counts what is listed`)
      t.same(ids(await list(token, '&q=Gato')), [], `${who}: a word only it holds finds nothing`)
      t.notOk(ids(await list(token, '&tipo=robo')).includes(mine._id), `${who}: filter`)
      t.notOk(ids(await list(token, '&sort=-tipo')).includes(mine._id), `${who}: sort`)
      t.notOk(ids(await list(token, '&fields=tipo')).includes(mine._id), `${who}: fields=`)
    }
    t.equal((await list(admin)).body.data.total, before.admin.body.data.total - 1, 'one fewer for the superadmin')
    t.equal((await list(agente.token)).body.data.total, before.agente.body.data.total - 1, 'and for the agente')
    const dni = await list(admin, '&denunciante_dni=12345678Z')
    t.same([dni.body.data.total, ids(dni)], [0, []], 'a search through the blind index finds nothing')
  })

  t.test('GET, history and versions: 403 Registro bloqueado; outside the scope 404 first', async (t) => {
    for (const path of [
      `/denuncias/${mine._id}`,
      `/denuncias/${mine._id}/historial`,
      `/denuncias/${mine._id}?version=1`,
    ]) {
      const reply = await api.request('GET', path, { token: admin })
      t.same(error(reply), { status: 403, success: false, error: 'Registro bloqueado' }, `${path}: superadmin`)
      t.match(reply.body.details, [{ field: 'registro', message: /denuncias\.bloqueados/ }])
      t.notMatch(JSON.stringify(reply.body), /Gato|Ana/, 'no value in the answer')
      t.equal((await api.request('GET', path, { token: agente.token })).status, 403, `${path}: agente, in scope`)
      const motivo = { 'x-motivo': 'Requerimiento judicial 5/2026' }
      t.equal(
        (await api.request('GET', path, { token: admin, headers: motivo })).status,
        403,
        'a motivo alone is not enough',
      )
    }
    t.equal((await block('denuncias', theirs._id)).status, 200)
    t.equal(
      (await api.request('GET', `/denuncias/${theirs._id}`, { token: agente.token })).status,
      404,
      'blocked outside the agente scope: 404, its existence not revealed',
    )
    t.equal((await block('denuncias', theirs._id, 'desbloquear')).status, 200)
    t.equal((await api.request('GET', `/denuncias/${theirs._id}`, { token: agente.token })).status, 404)
  })

  t.test('a bloqueados holder reads it by id with X-Motivo (400 without), logged with the motivo', async (t) => {
    const motivo = { 'x-motivo': 'Requerimiento judicial 5/2026' }
    const without = await api.request('GET', `/denuncias/${mine._id}`, { token: custodio.token })
    t.same(error(without), {
      status: 400,
      success: false,
      error: 'Indique el motivo de la consulta en la cabecera X-Motivo',
    })
    t.match(without.body.details, [{ field: 'X-Motivo' }])
    t.equal((await api.request('GET', `/denuncias/${mine._id}/historial`, { token: custodio.token })).status, 400)
    const got = await api.request('GET', `/denuncias/${mine._id}`, { token: custodio.token, headers: motivo })
    t.equal(got.status, 200)
    t.equal(got.body.data.lugar_hechos, 'Callejón del Gato')
    const history = await api.request('GET', `/denuncias/${mine._id}/historial`, {
      token: custodio.token,
      headers: motivo,
    })
    t.equal(history.status, 200)
    t.ok(history.body.data.entries.length >= 1)
    const version = await api.request('GET', `/denuncias/${mine._id}?version=1`, {
      token: custodio.token,
      headers: motivo,
    })
    t.equal(version.status, 200)
    t.equal(version.body.data._version, 1)
    // Each read is a consultation naming the record and the motivo.
    const ofCustodian = (r: Record<string, unknown>) =>
      r['action'] === 'consultar' && r['user_id'] === custodio.id && r['record_id'] === mine._id
    const rows = await eventually(
      () => auditRows(api),
      (all) => all.filter(ofCustodian).length >= 3,
    )
    const consultations = rows.filter(ofCustodian)
    t.equal(consultations.length, 3, 'GET, history and version: one consultation each')
    t.same(
      consultations.map((r) => [r['record_id'], r['motivo']]),
      Array(3).fill([mine._id, 'Requerimiento judicial 5/2026']),
      'each names the record and the motivo',
    )
  })

  t.test('PUT, a workflow move and DELETE: 403 for everyone, the record unchanged', async (t) => {
    for (const token of [admin, agente.token, custodio.token]) {
      const headers = { 'x-motivo': 'Corrección' }
      const edit = await api.request('PUT', `/denuncias/${mine._id}`, {
        token,
        headers,
        body: { lugar_hechos: 'Otro' },
      })
      t.equal(edit.status, 403, 'an edit')
      if (token === admin) {
        t.same(error(edit), { status: 403, success: false, error: 'Registro bloqueado' })
        t.match(edit.body.details, [{ field: 'registro', message: /desbloquee/ }])
      }
      const move = await api.request('PUT', `/denuncias/${mine._id}`, { token, body: { estado: 'investigacion' } })
      t.equal(move.status, 403, 'a workflow move')
      t.equal((await api.request('DELETE', `/denuncias/${mine._id}`, { token })).status, 403, 'delete')
    }
    const got = await api.request('GET', `/denuncias/${mine._id}`, {
      token: custodio.token,
      headers: { 'x-motivo': 'Comprobación' },
    })
    t.match(got.body.data, { _version: 1, lugar_hechos: 'Callejón del Gato', estado: 'pendiente' })
  })

  t.test('expand leaves a blocked target as its id', async (t) => {
    const person = (await api.request('GET', '/personal?limit=100', { token: admin })).body.data.records.find(
      (r: { _id: string }) => r._id === 'PER-2026-00011',
    )
    t.ok(person, 'the agente person is listed')
    t.equal((await block('personal', 'PER-2026-00011')).status, 200)
    const expanded = await api.request('GET', `/denuncias/${open._id}?expand=agente_asignado`, { token: admin })
    t.equal(expanded.status, 200)
    t.equal(expanded.body.data.agente_asignado, 'PER-2026-00011', 'not embedded')
    const page = await api.request('GET', `/denuncias?limit=100&expand=agente_asignado`, { token: admin })
    const row = page.body.data.records.find((r: { _id: string }) => r._id === open._id)
    t.equal(row.agente_asignado, 'PER-2026-00011')
    t.equal((await block('personal', 'PER-2026-00011', 'desbloquear')).status, 200)
    const back = await api.request('GET', `/denuncias/${open._id}?expand=agente_asignado`, { token: admin })
    t.match(back.body.data.agente_asignado, { _id: 'PER-2026-00011' }, 'embedded again once unblocked')
  })

  t.test('records export, as the operator and --as a user, leaves it out', async (t) => {
    const operator = await exportIds(api, 'denuncias')
    t.equal(operator.status, 0, operator.stderr)
    t.ok(operator.records.includes(open._id))
    t.notOk(operator.records.includes(mine._id), 'the operator')
    const asCustodio = await exportIds(api, 'denuncias', ['--as', custodio.username])
    t.equal(asCustodio.status, 0, asCustodio.stderr)
    t.notOk(asCustodio.records.includes(mine._id), 'a bloqueados holder: exports are lists')
  })

  t.test('the live feed replays the other records and says nothing of the blocked one', async (t) => {
    const stream = await feed('?modulos=denuncias', admin, { 'last-event-id': String(resumeFrom) })
    t.equal(stream.status, 200)
    const sentinel = await api.create('denuncias', { ...VALID['denuncias']!() })
    for (;;) {
      const event = await stream.next()
      if (event.data?.id === sentinel._id) break
    }
    const named = stream.events.filter((e) => e.data?.id === mine._id)
    t.same(named, [], 'no event names it')
    t.ok(
      stream.events.some((e) => e.data?.id === open._id),
      'the record created after it is replayed',
    )
  })

  t.test('the audit trail still names its id, never its values', async (t) => {
    const trail = await api.request('GET', '/auditoria?dni=12345678Z', { token: admin })
    t.equal(trail.status, 200)
    t.ok(trail.body.data.entries.some((e: { record_id: string }) => e.record_id === mine._id))
    t.notMatch(JSON.stringify(trail.body.data), /Gato|12345678Z/)
  })

  t.test('a stream that shows a record is told `fuera` when it is blocked, and gets it back unblocked', async (t) => {
    const stream = await feed('?modulos=denuncias', agente.token)
    t.equal(stream.status, 200)
    t.equal((await block('denuncias', open._id)).status, 200)
    const gone = await stream.next('fuera')
    t.same(gone.data, { modulo: 'denuncias', id: open._id, accion: 'bloquear', version: gone.data.version })
    t.equal((await block('denuncias', open._id, 'desbloquear')).status, 200)
    const back = await stream.next()
    t.equal(back.event, 'editar', 'an unblocked record comes back as an edit of no field')
    t.equal(back.data.id, open._id)
    t.equal(back.data.accion, 'desbloquear')
    t.same(back.data.campos, [])
    t.equal(back.data.registro._id, open._id, 'with the record as the agente reads it')
  })

  t.test('desbloquear: back in lists, totals and searches, readable and writable', async (t) => {
    t.equal((await block('denuncias', mine._id, 'desbloquear')).status, 200)
    const all = await list(admin)
    t.ok(ids(all).includes(mine._id))
    t.equal(
      all.body.data.total,
      before.admin.body.data.total + 1,
      'the total is counted again (one more: the sentinel)',
    )
    t.same(ids(await list(agente.token, '&q=Gato')), [mine._id])
    t.equal((await api.request('GET', `/denuncias/${mine._id}`, { token: agente.token })).status, 200)
    const edit = await api.request('PUT', `/denuncias/${mine._id}`, { token: admin, body: { estado: 'investigacion' } })
    t.equal(edit.status, 200)
  })
})
