// The bench's bare stack reads what the service wrote: its five statements on
// the database the suite runs on (SQLite, or PostgreSQL under RECORDS_TEST_DATABASE=postgres)
// answer the same ids, pages and totals as the API. Not a speed test: the bench measures speed.
import t from 'tap'
import { openBareStore } from '../../../scripts/bench/bare-store.js'
import { ESTADOS, seedDenuncias } from '../../../scripts/bench/seed.js'
import { startTestApi } from '../../helpers/api.js'
import { databaseFor, ON_POSTGRES, urlOf } from '../../helpers/postgres.js'

t.test(
  `the bare store on ${ON_POSTGRES ? 'PostgreSQL' : 'SQLite'} sees the seeded denuncias as the API does`,
  async (t) => {
    const api = await startTestApi(t)
    const spec = api.service.spec.moduleByName.get('denuncias')
    if (spec === undefined) throw new Error('no denuncias module')
    await seedDenuncias(api.service, spec, 30, 'test-seed')
    const env: Record<string, string> = ON_POSTGRES
      ? { BENCH_DATABASE_URL: urlOf(await databaseFor(api.dataDir)), BENCH_POOL_SIZE: '2' }
      : { BENCH_DB: `${api.dataDir}/records.db`, BENCH_BARE_DB: `${api.dataDir}/bare.db` }
    const store = await openBareStore(
      (name) => env[name] ?? '',
      (name) => env[name],
    )
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
