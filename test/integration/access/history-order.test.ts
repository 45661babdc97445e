// D25: a record's history is in the order things happened. Consultations are written in batches
// (up to a second later), so their chain sequence comes after a write made just after them; the
// history orders entries by their time and then by sequence, so a read shows where it happened.
import t from 'tap'
import { startTestApi, VALID } from '../../helpers/api.js'
import { auditRows, eventually } from '../protection/support.js'

t.test('D25: a consultation shows in the history before the write that followed it', async (t) => {
  // The service's own 1 s batch (the tests' 20 ms one could seal the consultation before the
  // write that follows it, and then there is nothing to order).
  const api = await startTestApi(t, { readAuditDelayMs: 1000 })
  const token = await api.adminToken()
  const denuncia = await api.create('denuncias', VALID['denuncias']!(), token)
  const read = await api.request('GET', `/denuncias/${denuncia._id}`, { token })
  t.equal(read.status, 200)
  const readId = String(read.headers['x-request-id'])
  const edited = await api.request('PUT', `/denuncias/${denuncia._id}`, {
    token,
    body: { lugar_hechos: 'Calle Mayor 1' },
  })
  t.equal(edited.status, 200)
  const rows = await eventually(
    () => auditRows(api),
    (all) => all.some((r) => r['request_id'] === readId),
  )
  const seqOf = (match: (r: Record<string, unknown>) => boolean) => Number(rows.find(match)?.['seq'])
  t.ok(
    seqOf((r) => r['request_id'] === readId) >
      seqOf((r) => r['action'] === 'editar' && r['record_id'] === denuncia._id),
    'the consultation was sealed after the write (a later batch)',
  )
  const history = await api.request('GET', `/denuncias/${denuncia._id}/historial`, { token })
  t.equal(history.status, 200)
  const entries = history.body.data.entries as Record<string, unknown>[]
  const consulted = entries.findIndex((e) => e['request_id'] === readId)
  const editedAt = entries.findIndex((e) => e['action'] === 'editar')
  t.ok(consulted >= 0 && editedAt >= 0, 'both entries are in the history (superadmin holds auditoria.ver)')
  t.ok(consulted < editedAt, 'the consultation comes before the write that followed it')
  const times = entries.map((e) => String(e['at']))
  t.same(times, [...times].sort(), 'entries in time order')
})
