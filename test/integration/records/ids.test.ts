// D8: record ids `<PREFIX>-<YYYY>-<NNNNN>`, a sequence per prefix and year, never reused.
// PostgreSQL draws them from a SEQUENCE (D37): a rolled-back create leaves a gap there.
import { sql } from 'kysely'
import t from 'tap'
import { recordIdSequence } from '../../../src/db/records/sequences.js'
import { startTestApi, VALID } from '../../helpers/api.js'
import { ON_POSTGRES } from '../../helpers/postgres.js'

t.test('D8: each prefix has its own sequence starting at 00001', async (t) => {
  const api = await startTestApi(t, { clock: () => new Date('2026-05-10T09:00:00Z') })
  t.equal((await api.create('denuncias', VALID['denuncias']!()))._id, 'DEN-2026-00001')
  t.equal((await api.create('sanciones', VALID['sanciones']!()))._id, 'SAN-2026-00001')
  t.equal((await api.create('denuncias', VALID['denuncias']!()))._id, 'DEN-2026-00002')
  t.equal((await api.create('atestados', VALID['atestados']!()))._id, 'ATE-2026-00001')
  t.equal((await api.create('sala092', VALID['sala092']!()))._id, '092-2026-00001')
  t.equal((await api.create('sanciones', VALID['sanciones']!()))._id, 'SAN-2026-00002')
})

t.test('D8: the year comes from the clock, in the service time zone', async (t) => {
  let now = new Date('2027-03-01T12:00:00Z')
  const api = await startTestApi(t, { clock: () => now })
  t.equal((await api.create('denuncias', VALID['denuncias']!()))._id, 'DEN-2027-00001')
  t.equal((await api.create('denuncias', VALID['denuncias']!()))._id, 'DEN-2027-00002')
  now = new Date('2027-12-31T22:30:00Z') // 23:30 in Madrid: still 2027
  t.equal((await api.create('denuncias', VALID['denuncias']!()))._id, 'DEN-2027-00003')
  now = new Date('2027-12-31T23:30:00Z') // 00:30 on 1 January 2028 in Madrid
  t.equal(
    (await api.create('denuncias', VALID['denuncias']!()))._id,
    'DEN-2028-00001',
    'a new year starts a new sequence',
  )
  t.equal((await api.create('sanciones', VALID['sanciones']!()))._id, 'SAN-2028-00001')
})

t.test('D8: a number is never reused, not even after a delete', async (t) => {
  const api = await startTestApi(t, { clock: () => new Date('2026-05-10T09:00:00Z') })
  const token = await api.adminToken()
  const first = await api.create('vehiculos', VALID['vehiculos']!())
  const second = await api.create('vehiculos', VALID['vehiculos']!())
  t.equal(second._id, 'VEH-2026-00002')
  t.equal((await api.request('DELETE', `/vehiculos/${second._id}`, { token })).status, 200)
  t.equal((await api.request('DELETE', `/vehiculos/${first._id}`, { token })).status, 200)
  t.equal((await api.create('vehiculos', VALID['vehiculos']!()))._id, 'VEH-2026-00003')
})

t.test('D8, D37: a failed create leaves no record and no entry (SQLite: not even its number)', async (t) => {
  const api = await startTestApi(t, { clock: () => new Date('2026-05-10T09:00:00Z') })
  const token = await api.adminToken()
  const body = VALID['vehiculos']!()
  t.equal((await api.create('vehiculos', body))._id, 'VEH-2026-00001')
  t.equal((await api.request('POST', '/vehiculos', { token, body })).status, 409, 'duplicate matricula rolls back')
  // PostgreSQL: the sequence gave 00002 to the rolled-back create and never gives it again.
  const next = ON_POSTGRES ? 'VEH-2026-00003' : 'VEH-2026-00002'
  t.equal((await api.create('vehiculos', VALID['vehiculos']!()))._id, next)
  t.equal((await api.request('GET', '/vehiculos?limit=10', { token })).body.data.total, 2, 'no record of the failure')
  const { db } = api.service.database
  const audited = await db.selectFrom('_audit').select('record_id').where('module', '=', 'vehiculos').execute()
  t.same(
    audited.map((r) => r['record_id']),
    ['VEH-2026-00001', next],
    'one entry per committed create',
  )
  t.equal((await db.selectFrom('_audit_pending').selectAll().execute()).length, 0, 'nothing pending')
})

t.test('D8: 50 concurrent creates all succeed with unique consecutive ids', async (t) => {
  const api = await startTestApi(t, { clock: () => new Date('2026-05-10T09:00:00Z') })
  const token = await api.adminToken()
  const replies = await Promise.all(
    Array.from({ length: 50 }, () => api.request('POST', '/denuncias', { token, body: VALID['denuncias']!() })),
  )
  t.same(
    replies.map((r) => r.status),
    Array(50).fill(201),
    'all created',
  )
  const ids = replies.map((r) => r.body.data._id as string).sort()
  t.equal(new Set(ids).size, 50, 'unique')
  t.same(
    ids,
    Array.from({ length: 50 }, (_, i) => `DEN-2026-${String(i + 1).padStart(5, '0')}`),
    'consecutive from 00001',
  )
  t.equal((await api.request('GET', '/denuncias?limit=100', { token })).body.data.total, 50)
})

t.test('D8: past 99999 the number keeps growing to 6 digits', async (t) => {
  const api = await startTestApi(t, { clock: () => new Date('2026-05-10T09:00:00Z') })
  const token = await api.adminToken()
  t.equal((await api.create('denuncias', VALID['denuncias']!()))._id, 'DEN-2026-00001')
  const { db } = api.service.database
  await db
    .updateTable('_sequences')
    .set({ value: 99998 })
    .where('prefix', '=', 'DEN')
    .where('year', '=', 2026)
    .execute()
  // PostgreSQL: the sequence already in use is the counter (D37).
  if (ON_POSTGRES) await sql`select setval(${recordIdSequence('DEN', 2026)}::regclass, 99998)`.execute(db)
  t.equal((await api.create('denuncias', VALID['denuncias']!()))._id, 'DEN-2026-99999')
  const next = await api.create('denuncias', VALID['denuncias']!())
  t.equal(next._id, 'DEN-2026-100000')
  t.equal((await api.create('denuncias', VALID['denuncias']!()))._id, 'DEN-2026-100001')
  const got = await api.request('GET', `/denuncias/${next._id}`, { token })
  t.equal(got.status, 200, 'a 6-digit id can be read back')
  t.equal(got.body.data._id, 'DEN-2026-100000')
  t.equal((await api.request('GET', '/denuncias?sort=-_created', { token })).body.data.total, 4)
})
