// D48: writes sent together through the API. On SQLite they share commits (group commit); on
// PostgreSQL each has its own transaction. Either way each answers for itself: the ones that
// conflict get their 409 and leave nothing behind (no record, no version, no audit entry,
// on SQLite not even their id number), the others are all there, and the audit chain and every
// record's hash verify afterwards.
import t from 'tap'
import { verifyIntegrity } from '../../../src/db/operations/verify-integrity.js'
import { SYSTEM_TABLES } from '../../../src/db/system-tables.js'
import { ON_POSTGRES, startTestApi, VALID } from '../../helpers/api.js'

t.test('D48: creates, updates and conflicting writes sent together each answer for themselves', async (t) => {
  const api = await startTestApi(t, { clock: () => new Date('2026-05-10T09:00:00Z') })
  const token = await api.adminToken()
  const taken = await api.create('vehiculos', { ...VALID['vehiculos']!(), matricula: '0000-BBB' })
  const edited = await api.create('vehiculos', { ...VALID['vehiculos']!(), matricula: '0001-BBB' })
  const matricula = (i: number) => `${String(1000 + i)}-CDF`
  const requests = [
    ...Array.from({ length: 24 }, (_, i) =>
      api.request('POST', '/vehiculos', {
        token,
        // Every sixth repeats the taken plate: 409, among creates that succeed.
        body: { ...VALID['vehiculos']!(), matricula: i % 6 === 5 ? '0000-BBB' : matricula(i) },
      }),
    ),
    api.request('PUT', `/vehiculos/${edited._id}`, {
      token,
      headers: { 'if-match': '"1"' },
      body: { marca: 'Renault' },
    }),
    // The same version again: whichever runs second finds version 2 and gets 409 (D13).
    api.request('PUT', `/vehiculos/${edited._id}`, {
      token,
      headers: { 'if-match': '"1"' },
      body: { marca: 'Citroën' },
    }),
  ]
  const replies = await Promise.all(requests)
  const creates = replies.slice(0, 24)
  t.same(
    creates.map((r) => r.status),
    Array.from({ length: 24 }, (_, i) => (i % 6 === 5 ? 409 : 201)),
    'each create gets its own answer',
  )
  t.same(
    replies
      .slice(24)
      .map((r) => r.status)
      .sort(),
    [200, 409],
    'of two updates from version 1, one wins and the other is refused',
  )
  const created = creates.filter((r) => r.status === 201).map((r) => r.body.data._id as string)
  t.equal(new Set(created).size, 20)
  if (!ON_POSTGRES)
    t.same(
      [...created].sort(),
      Array.from({ length: 20 }, (_, i) => `VEH-2026-${String(i + 3).padStart(5, '0')}`),
      'SQLite: a refused create gives its number back, so the ids run on without a gap',
    )

  const list = await api.request('GET', '/vehiculos?limit=100', { token })
  t.equal(list.body.data.total, 22, 'the two before and the twenty created')
  for (const id of created) {
    const got = await api.request('GET', `/vehiculos/${id}`, { token })
    t.equal(got.status, 200, `${id} reads back`)
  }
  const { db } = api.service.database
  const entries = await db
    .selectFrom(SYSTEM_TABLES.audit)
    .select(['action', 'record_id'])
    .where('module', '=', 'vehiculos')
    .execute()
  t.equal(
    entries.filter((e) => e['action'] === 'crear').length,
    22,
    'one crear entry per record kept, none for a refused one',
  )
  t.equal(entries.filter((e) => e['action'] === 'editar').length, 1, 'one entry for the update that won')
  const versions = await db
    .selectFrom(SYSTEM_TABLES.versions)
    .select('record_id')
    .where('module', '=', 'vehiculos')
    .execute()
  t.equal(versions.length, 23, 'a version per record and one for the update')
  t.equal(taken.matricula, '0000-BBB')
  const report = await verifyIntegrity(api.service.database, api.service.spec, api.service.codec)
  t.same(report.problems, [], 'the audit chain and every hash verify')
})
