// The bench's bare stack reads what the service wrote: its five statements on
// the database the suite runs on (SQLite, or PostgreSQL under RECORDS_TEST_DATABASE=postgres)
// answer the same ids, pages and totals as the API. Not a speed test: the bench measures speed.
import { createHash } from 'node:crypto'
import BetterSqlite3 from 'better-sqlite3'
import pg from 'pg'
import t, { type Test } from 'tap'
import { openBareStore } from '../../../scripts/bench/bare-store.js'
import { RECORD_META, type Consultation } from '../../../scripts/bench/same-work.js'
import { creatableDenuncia, ESTADOS, PLAIN_FIELDS, seedDenuncias } from '../../../scripts/bench/seed.js'
import { startTestApi } from '../../helpers/api.js'
import { databaseFor, ON_POSTGRES, urlOf } from '../../helpers/postgres.js'

async function openOnApi(t: Test, seeded: number) {
  const api = await startTestApi(t)
  const spec = api.service.spec.moduleByName.get('denuncias')
  if (spec === undefined) throw new Error('no denuncias module')
  await seedDenuncias(api.service, spec, seeded, 'test-seed')
  const env: Record<string, string> = ON_POSTGRES
    ? { BENCH_DATABASE_URL: urlOf(await databaseFor(api.dataDir)), BENCH_POOL_SIZE: '2' }
    : { BENCH_DB: `${api.dataDir}/records.db`, BENCH_BARE_DB: `${api.dataDir}/bare.db` }
  const store = await openBareStore(
    (name) => env[name] ?? '',
    (name) => env[name],
  )
  return { api, env, store }
}

t.test(
  `the bare store on ${ON_POSTGRES ? 'PostgreSQL' : 'SQLite'} sees the seeded denuncias as the API does`,
  async (t) => {
    const { api, store } = await openOnApi(t, 30)
    const token = await api.adminToken()

    const listed = await api.request('GET', '/denuncias?limit=10', { token })
    const ids = (listed.body.data.records as { _id: string }[]).map((r) => r._id)
    const page = await store.page(10, 0, undefined)
    t.same(
      page.rows.map((r) => r['_id']),
      ids,
      'first page in the same order',
    )
    t.equal(page.total, 30)

    const estado = ESTADOS[0]
    const filtered = await api.request('GET', `/denuncias?estado=${estado}&prioridad=baja&limit=100`, { token })
    t.equal(
      (await store.page(100, 0, { estado, prioridad: 'baja' })).total,
      filtered.body.data.total,
      'filtered total as the API counts it',
    )

    const one = await store.getOne(ids[0] as string)
    t.equal(one?.['_id'], ids[0])
    const dni = String(one?.['denunciante_dni'])
    t.match(dni, /^r1\.[0-9a-f]{16}\./, "encrypted at rest under the record's own data key (D41)")
    const keyId = dni.split('.')[1] as string
    const [wrapped] = await store.recordKeys([keyId])
    t.same(
      { key_id: wrapped?.['key_id'], module: wrapped?.['module'], record_id: wrapped?.['record_id'] },
      // SQLite's keys are pooled, committed before their record exists: the row names no record.
      { key_id: keyId, module: 'denuncias', record_id: ON_POSTGRES ? ids[0] : '' },
      'its wrapped key, as the bare stack unwraps it',
    )
    t.match(String(wrapped?.['wrapped']), /^v1\./)
    t.equal(await store.getOne('DEN-1999-99999'), undefined)
    t.match((await store.account('admin'))?.password, /^\$2/, 'bcrypt hash of the admin')
    await store.insert('bare-1', '{}', ['a', 'b', null])
    await store.close()
  },
)

/** The token's claims, read without checking them (the store is asked about them, not the signature). */
const claimsOf = (token: string): { sub: string; jti: string } =>
  JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString('utf8')) as { sub: string; jti: string }

t.test(
  `the same-work GET on ${ON_POSTGRES ? 'PostgreSQL' : 'SQLite'}: the caller as it stands, the row, a chained consultation log`,
  async (t) => {
    const { api, env, store } = await openOnApi(t, 3)
    t.teardown(() => store.close())
    const token = await api.adminToken()
    const { sub, jti } = claimsOf(token)
    const listed = await api.request('GET', '/denuncias?limit=3', { token })
    const id = (listed.body.data.records as { _id: string }[])[0]?._id as string

    const found = await store.getWithCaller(id, sub, jti)
    t.same(found.caller, { role: 'superadmin', active: true, sessionVersion: 0, revoked: false }, 'the live caller')
    t.equal(found.row?.['_id'], id, 'and the row')
    t.notOk(found.row !== undefined && 'revoked' in found.row, "the caller's columns are not the record's")
    t.same(
      await store.getWithCaller('DEN-1999-99999', sub, jti),
      { caller: found.caller },
      'no row: 404 after the caller',
    )
    t.same(await store.getWithCaller(id, 'USR-1999-99999', jti), {}, 'no account: 401, nothing read')

    // A logout commits a revocation from the service's connection: seen on the next request (D20).
    t.equal((await api.request('POST', '/auth/logout', { token })).status, 200)
    t.equal((await store.getWithCaller(id, sub, jti)).caller?.revoked, true, 'the revoked token, at once')

    const entry = (n: number): Consultation => ({
      at: `2026-11-29T10:00:0${n}.000Z`,
      userId: sub,
      module: 'denuncias',
      recordId: id,
      version: 1,
      fields: ['tipo', 'estado'],
      address: '127.0.0.1',
      requestId: `req-${n}`,
    })
    await store.appendConsultations([entry(1), entry(2)])
    await store.appendConsultations([entry(3)])
    const query = 'select request_id, prev_hash, hash from bare_consultations order by seq'
    let rows: { request_id: string; prev_hash: string; hash: string }[]
    if (ON_POSTGRES) {
      const client = new pg.Client({ connectionString: env['BENCH_DATABASE_URL'] })
      await client.connect()
      rows = (await client.query(query)).rows
      await client.end()
    } else {
      const db = new BetterSqlite3(env['BENCH_BARE_DB'] as string, { readonly: true })
      rows = db.prepare(query).all() as typeof rows
      db.close()
    }
    t.same(
      rows.map((r) => r.request_id),
      ['req-1', 'req-2', 'req-3'],
      'every entry, in order, across batches',
    )
    let prev = ''
    for (const [i, row] of rows.entries()) {
      t.equal(row.prev_hash, prev, `entry ${i + 1} names the one before`)
      const expected = createHash('sha256')
        .update(prev)
        .update(JSON.stringify(entry(i + 1)))
        .digest('hex')
      t.equal(row.hash, expected, `entry ${i + 1}'s hash covers the previous hash and the entry`)
      prev = row.hash
    }
  },
)

t.test(
  `the same-work page on ${ON_POSTGRES ? 'PostgreSQL' : 'SQLite'}: the records the API answers for those fields, the live count as it stands`,
  async (t) => {
    const { api, store } = await openOnApi(t, 12)
    t.teardown(() => store.close())
    const token = await api.adminToken()
    const { sub, jti } = claimsOf(token)
    const columns = [...RECORD_META, ...PLAIN_FIELDS]
    const asked = `/denuncias?limit=5&offset=3&fields=${PLAIN_FIELDS.join(',')}`
    const listed = await api.request('GET', asked, { token })
    const found = await store.pageWithCaller(columns, 5, 3, sub, jti)
    t.same(found.caller, { role: 'superadmin', active: true, sessionVersion: 0, revoked: false }, 'the live caller')
    // JSON both ways: the page holds what the service's records hold, key for key and value for value.
    t.strictSame(JSON.parse(JSON.stringify(found.rows)), listed.body.data.records, "the service's records of the page")
    t.equal(found.total, 12, 'the live count')

    // Written by the service's connection: counted on the next page (SQLite: its data_version moved).
    const created = await api.request('POST', '/denuncias', { token, body: creatableDenuncia(99) })
    t.equal(created.status, 201)
    t.equal((await store.pageWithCaller(columns, 5, 0, sub, jti)).total, 13, 'a create, counted at once')
    t.same(await store.pageWithCaller(columns, 5, 0, 'USR-1999-99999', jti), {}, 'no account: 401, nothing returned')
    t.equal((await api.request('POST', '/auth/logout', { token })).status, 200)
    t.equal((await store.pageWithCaller(columns, 5, 0, sub, jti)).caller?.revoked, true, 'the revoked token, at once')
    await t.rejects(store.pageWithCaller(['_id; drop table denuncias'], 1, 0, sub, jti), /not a column/)
  },
)
