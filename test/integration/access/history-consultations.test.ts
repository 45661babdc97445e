// F2 (D25, D29): a record's history tipped off investigations. Who read a file, from where,
// under which request and why are audit matters: a holder of `auditoria.ver` sees a record's
// consultations in its history, every other reader sees the record's changes only, each as the
// chain columns the API reference lists (no address, request id or motivo).
import t from 'tap'
import { RECORD_CHANGE_ACTIONS } from '../../../src/db/audit/history-visibility.js'
import { startTestApi, VALID, type TestApi } from '../../helpers/api.js'
import { auditRows, eventually } from '../protection/support.js'

const MOTIVO = 'Asuntos internos, diligencias 41/2026'
const REQUEST_COLUMNS = ['address', 'request_id', 'motivo', 'recipient', 'record_ids', 'criteria']

const history = async (api: TestApi, id: string, token: string) => {
  const reply = await api.request('GET', `/denuncias/${id}/historial`, { token })
  if (reply.status !== 200) throw new Error(`historial: ${reply.status} ${JSON.stringify(reply.body)}`)
  return reply
}

t.test('F2: consultations in a history are for auditoria.ver holders; others see the changes only', async (t) => {
  const api = await startTestApi(t)
  const agente = await api.userWithRole('agente')
  const consulta = await api.userWithRole('consulta')
  const jefe = await api.userWithRole('jefe')
  const administrador = await api.userWithRole('administrador')
  const superadmin = await api.userWithRole('superadmin')

  // The agente's own denuncia (in their scope), changed by the administrator, then read by an
  // investigator who says why: an internal-affairs reference the agente must not learn of.
  const denuncia = await api.create('denuncias', VALID['denuncias']!(), agente.token)
  const edited = await api.request('PUT', `/denuncias/${denuncia._id}`, {
    token: administrador.token,
    body: { lugar_hechos: 'Calle Mayor 1' },
  })
  t.equal(edited.status, 200)
  const read = await api.request('GET', `/denuncias/${denuncia._id}`, {
    token: jefe.token,
    headers: { 'x-motivo': encodeURIComponent(MOTIVO) },
  })
  t.equal(read.status, 200)
  const investigation = String(read.headers['x-request-id'])
  const landed = await eventually(
    () => auditRows(api),
    (rows) => rows.some((r) => r['request_id'] === investigation),
  )
  t.ok(
    landed.some((r) => r['request_id'] === investigation && r['motivo'] === MOTIVO),
    'the investigator`s consultation is in the audit trail',
  )

  for (const [role, user] of [
    ['agente', agente],
    ['consulta', consulta],
  ] as const) {
    const reply = await history(api, denuncia._id, user.token)
    const entries = reply.body.data.entries as Record<string, unknown>[]
    t.same(
      entries.map((e) => e['action']),
      ['crear', 'editar'],
      `${role}: the record's changes, no consultation`,
    )
    t.ok(
      entries.every((e) => RECORD_CHANGE_ACTIONS.has(e['action'] as never)),
      `${role}: change entries only`,
    )
    for (const entry of entries)
      t.same(
        REQUEST_COLUMNS.filter((key) => key in entry),
        [],
        `${role}: a ${String(entry['action'])} entry carries no request column`,
      )
    t.match(entries[1], { action: 'editar', user_id: administrador.id, changes: { lugar_hechos: {} } })
    const text = JSON.stringify(reply.body)
    t.notOk(text.includes('Asuntos internos'), `${role}: the motivo appears nowhere`)
    t.notOk(text.includes(investigation), `${role}: nor the investigator's request id`)
    t.notOk(text.includes(jefe.id), `${role}: nor who read the file`)
  }

  for (const [role, user] of [
    ['administrador', administrador],
    ['superadmin', superadmin],
  ] as const) {
    // The agente's reads of the history are consultations too, written in batches: wait for them.
    const entries = await eventually(
      async () => (await history(api, denuncia._id, user.token)).body.data.entries as Record<string, unknown>[],
      (list) => list.some((e) => e['action'] === 'consultar' && e['user_id'] === agente.id),
    )
    const consultation = entries.find((e) => e['request_id'] === investigation)
    t.match(
      consultation,
      { action: 'consultar', user_id: jefe.id, address: '127.0.0.1', motivo: MOTIVO, record_id: denuncia._id },
      `${role}: the consultation, with who, from where and why`,
    )
    t.ok(
      entries.some((e) => e['action'] === 'consultar' && e['user_id'] === agente.id),
      `${role}: also the agente's own reads of the history`,
    )
    t.match(
      entries.filter((e) => RECORD_CHANGE_ACTIONS.has(e['action'] as never)).map((e) => e['action']),
      ['crear', 'editar'],
    )
  }
})
