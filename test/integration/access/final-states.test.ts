// F9 (second outside audit): a field a workflow move required cannot be cleared afterwards while
// the record is in a state every way into which required it, and a record in a final state is
// read-only (PUT and DELETE 409), superadmin included, unless the workflow's `final_editable_by`
// names the role. Over real HTTP on the shipped modules.yaml and on a copy declaring the key.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { REPO_MODULES, startTestApi, VALID, type TestApi } from '../../helpers/api.js'

/** Moves that take a new sanción to `state`, with what each needs. */
const WAY: Record<string, Record<string, unknown>[]> = {
  notificada: [{ estado: 'notificada', fecha_notificacion: '2026-11-20' }],
  alegacion: [{ estado: 'notificada', fecha_notificacion: '2026-11-20' }, { estado: 'alegacion' }],
  firme: [{ estado: 'notificada', fecha_notificacion: '2026-11-20' }, { estado: 'firme' }],
  cobrada: [
    { estado: 'notificada', fecha_notificacion: '2026-11-20' },
    { estado: 'firme' },
    { estado: 'cobrada', fecha_pago: '2026-11-22' },
  ],
  anulada: [{ estado: 'anulada' }],
}

async function sancionIn(api: TestApi, state: string): Promise<string> {
  const token = await api.adminToken()
  const record = await api.create('sanciones', VALID['sanciones']!())
  for (const body of WAY[state] ?? []) {
    const reply = await api.request('PUT', `/sanciones/${record._id}`, { token, body })
    if (reply.status !== 200) throw new Error(`-> ${String(body['estado'])}: ${JSON.stringify(reply.body)}`)
  }
  return record._id as string
}

t.test('F9: a field a move required cannot be cleared in that state or a later one reached through it', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const cases: [string, string, string][] = [
    ['notificada', 'fecha_notificacion', 'notificada'],
    ['alegacion', 'fecha_notificacion', 'alegacion'],
    ['firme', 'fecha_notificacion', 'firme'],
  ]
  for (const [state, field, named] of cases)
    // An empty string is no date at all (400 Datos inválidos); null is how a PUT clears a field.
    for (const cleared of [null]) {
      const id = await sancionIn(api, state)
      const reply = await api.request('PUT', `/sanciones/${id}`, { token, body: { [field]: cleared } })
      t.equal(reply.status, 400, `${state}: ${field} = ${JSON.stringify(cleared)}`)
      t.same(reply.body, {
        success: false,
        error: 'Datos requeridos',
        details: [{ field, message: `El estado '${named}' requiere '${field}'` }],
      })
      const after = await api.request('GET', `/sanciones/${id}`, { token })
      t.equal(after.body.data[field], '2026-11-20', 'nothing changed')
    }
  const notified = await sancionIn(api, 'notificada')
  const onTheWay = await api.request('PUT', `/sanciones/${notified}`, {
    token,
    body: { estado: 'alegacion', fecha_notificacion: null },
  })
  t.equal(onTheWay.status, 400, 'nor cleared with the move to a later state')
  t.equal(
    (await api.request('PUT', `/sanciones/${notified}`, { token, body: { fecha_notificacion: '2026-11-21' } })).status,
    200,
    'it may still be corrected',
  )
  const draft = await sancionIn(api, 'borrador')
  await api.request('PUT', `/sanciones/${draft}`, { token, body: { fecha_notificacion: '2026-11-20' } })
  t.equal(
    (await api.request('PUT', `/sanciones/${draft}`, { token, body: { fecha_notificacion: null } })).status,
    200,
    'borrador does not require it',
  )
})

t.test('F9: a record in a final state is read-only, superadmin included: PUT and DELETE are 409', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const oficial = await api.userWithRole('oficial')
  for (const state of ['cobrada', 'anulada']) {
    const id = await sancionIn(api, state)
    const put = await api.request('PUT', `/sanciones/${id}`, { token, body: { fecha_pago: null } })
    t.equal(put.status, 409, `${state}: PUT`)
    t.same(put.body, {
      success: false,
      error: 'Registro no modificable en su estado final',
      details: [
        { field: 'estado', message: `El registro está en el estado final '${state}': su rol no puede modificarlo` },
      ],
    })
    const edit = await api.request('PUT', `/sanciones/${id}`, {
      token: oficial.token,
      body: { lugar_infraccion: 'Otra calle' },
    })
    t.equal(edit.status, 409, `${state}: an ordinary field neither`)
    const del = await api.request('DELETE', `/sanciones/${id}`, { token })
    t.equal(del.status, 409, `${state}: DELETE`)
    t.same(del.body.details, [
      { field: 'estado', message: `El registro está en el estado final '${state}': su rol no puede eliminarlo` },
    ])
    const after = await api.request('GET', `/sanciones/${id}`, { token })
    t.equal(after.status, 200, 'still there')
    t.equal(after.body.data._version, (WAY[state]?.length ?? 0) + 1, 'unchanged')
    t.equal(after.body.data.lugar_infraccion, 'Calle Real 3')
  }
  const firme = await sancionIn(api, 'firme')
  t.equal((await api.request('DELETE', `/sanciones/${firme}`, { token })).status, 200, 'a state not final is deletable')
})

t.test('F9: final_editable_by lets the roles it names edit and delete a final record, and nobody else', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'records-final-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'modules.yaml')
  const shipped = readFileSync(REPO_MODULES, 'utf8')
  const declared = shipped.replace(
    '      final: [cobrada, anulada]\n',
    '      final: [cobrada, anulada]\n      final_editable_by: [jefe, administrador]\n',
  )
  t.not(declared, shipped, 'the copy declares the key')
  writeFileSync(file, declared)
  const api = await startTestApi(t, { env: { MODULES_FILE: file } })
  const jefe = await api.userWithRole('jefe')
  const admin = await api.adminToken()
  const id = await sancionIn(api, 'cobrada')
  const edit = await api.request('PUT', `/sanciones/${id}`, {
    token: jefe.token,
    body: { lugar_infraccion: 'Otra calle' },
  })
  t.equal(edit.status, 200, JSON.stringify(edit.body))
  const amount = await api.request('PUT', `/sanciones/${id}`, { token: jefe.token, body: { importe: 1 } })
  t.equal(amount.status, 409, 'its read-only fields stay read-only')
  t.equal(amount.body.error, 'Campo no modificable en el estado actual del registro')
  const move = await api.request('PUT', `/sanciones/${id}`, { token: jefe.token, body: { estado: 'firme' } })
  t.equal(move.body.error, 'Transición de estado no permitida', 'and no move leaves a final state')
  t.equal(
    (await api.request('PUT', `/sanciones/${id}`, { token: admin, body: { lugar_infraccion: 'X' } })).status,
    409,
    'a role not named is refused',
  )
  const administrador = await api.userWithRole('administrador')
  t.equal((await api.request('DELETE', `/sanciones/${id}`, { token: administrador.token })).status, 200)
})
