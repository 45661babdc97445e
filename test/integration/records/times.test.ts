// D9: _created, _modified and _deleted as `YYYY-MM-DD HH:MM:SS` in the service time zone.
import t from 'tap'
import { startTestApi, VALID } from '../../helpers/api.js'

t.test('D9: _created and _modified are written in Europe/Madrid from the clock', async (t) => {
  let now = new Date('2026-03-28T23:59:58.750Z') // winter time, UTC+1
  const api = await startTestApi(t, { clock: () => now })
  const winter = await api.create('denuncias', VALID['denuncias']!())
  t.equal(winter._created, '2026-03-29 00:59:58', 'milliseconds dropped, not rounded')
  t.equal(winter._modified, '2026-03-29 00:59:58')
  now = new Date('2026-03-29T01:00:00Z') // the clocks went forward at 01:00 UTC: UTC+2
  const summer = await api.create('denuncias', VALID['denuncias']!())
  t.equal(summer._created, '2026-03-29 03:00:00')
  now = new Date('2026-10-25T00:30:00Z') // still summer time
  t.equal((await api.create('denuncias', VALID['denuncias']!()))._created, '2026-10-25 02:30:00')
  now = new Date('2026-10-25T01:30:00Z') // back to winter time
  t.equal((await api.create('denuncias', VALID['denuncias']!()))._created, '2026-10-25 02:30:00')
})

t.test('D9: an update refreshes _modified and _modified_by and keeps _created and _created_by', async (t) => {
  let now = new Date('2026-11-20T09:00:00Z')
  const api = await startTestApi(t, { clock: () => now })
  const admin = await api.adminToken()
  const oficial = await api.userWithRole('oficial')
  const created = await api.create('denuncias', VALID['denuncias']!())
  t.equal(created._created, '2026-11-20 10:00:00')
  t.match(created._created_by, /^USR-2026-\d{5}$/)

  now = new Date('2026-11-21T16:45:12Z')
  const updated = await api.request('PUT', `/denuncias/${created._id}`, {
    token: oficial.token,
    body: { estado: 'investigacion' },
  })
  t.equal(updated.status, 200)
  t.match(updated.body.data, {
    _created: '2026-11-20 10:00:00',
    _created_by: created._created_by,
    _modified: '2026-11-21 17:45:12',
    _modified_by: oficial.id,
    _version: 2,
  })
  const got = await api.request('GET', `/denuncias/${created._id}`, { token: admin })
  t.same(got.body.data, updated.body.data, 'what update returned is what is stored')

  now = new Date('2026-11-22T08:00:00Z')
  t.equal((await api.request('DELETE', `/denuncias/${created._id}`, { token: admin })).status, 200)
  const row = await api.service.database.db
    .selectFrom('denuncias')
    .selectAll()
    .where('_id', '=', created._id)
    .executeTakeFirstOrThrow()
  t.equal(row['_deleted'], '2026-11-22 09:00:00', '_deleted in the same format')
  t.equal(row['_modified'], '2026-11-22 09:00:00')
  t.equal(row['_modified_by'], created._created_by)
  t.equal(row['_created'], '2026-11-20 10:00:00')
})

t.test('D9: the format is exactly YYYY-MM-DD HH:MM:SS with the real clock', async (t) => {
  const api = await startTestApi(t)
  const record = await api.create('turnos', VALID['turnos']!())
  t.match(record._created, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
  const madrid = new Intl.DateTimeFormat('en-CA', {
    timeZone: 'Europe/Madrid',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date())
  t.equal(record._created.slice(0, 10), madrid, 'today in Madrid')
})
