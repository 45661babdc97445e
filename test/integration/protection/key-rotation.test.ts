// A rotation of 10,000 records with encrypted values, interrupted halfway,
// finishes on restart; afterwards no value is under the retired key, every value reads back
// through the API, the chain verifies clean, and the new key alone is enough to start.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import t from 'tap'
import { keyIdOf } from '../../../src/db/crypto.js'
import { rotateEncryption } from '../../../src/db/keys/rotation.js'
import { verifyIntegrity } from '../../../src/db/operations/verify-integrity.js'
import { ON_POSTGRES, startTestApi, VALID, type TestApi } from '../../helpers/api.js'
import { filesUnder, newKey, storedText } from './support.js'

const PER_MODULE: Record<string, number> = { denuncias: 3000, sanciones: 2500, personal: 2000, sala092: 2500 }
const TOTAL = Object.values(PER_MODULE).reduce((a, b) => a + b, 0)
const BATCH = 500
const SEED_AT_ONCE = 8

/** The value record `i` holds in `field`: computable again when checking. */
function valueOf(module: string, field: string, type: string, i: number): string {
  if (type === 'date') return new Date(Date.UTC(1950, 0, 1) + i * 86_400_000).toISOString().slice(0, 10)
  return `${module}.${field}.${i}`
}

const rotate = (api: TestApi, onBatch?: (p: { module: string; rewritten: number }) => void) =>
  rotateEncryption({
    database: api.service.database,
    spec: api.service.spec,
    codec: api.service.codec,
    recordKeys: api.service.recordKeys,
    factors: api.service.factors,
    changes: api.service.changes,
    activeKeyId: api.service.keys.targetId,
    timezone: api.service.spec.service.timezone,
    clock: () => new Date(),
    batchSize: BATCH,
    ...(onBatch === undefined ? {} : { onBatch }),
  })

/**
 * Stored values still under key `keyId`, over every encrypted column of every module, plus the
 * per-record data keys (D41) it wraps: a value under its record's key is readable through it.
 */
async function countUnder(api: TestApi, keyId: string): Promise<number> {
  let n = (await api.service.recordKeys.wrapUsage()).get(keyId) ?? 0
  for (const spec of api.service.spec.modules)
    for (const field of spec.fields.filter((f) => f.encrypted)) {
      const { rows } = await sql<{
        n: number
      }>`select count(*) as n from ${sql.table(spec.name)} where ${sql.ref(field.column)} like ${`v1.${keyId}.%`}`.execute(
        api.service.database.db,
      )
      n += Number(rows[0]?.n)
    }
  return n
}

t.test('rotating 10,000 records, interrupted halfway, completes on restart under the new key', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-rotation-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const oldKey = newKey()
  const newOne = newKey()
  const [oldId, newId] = [keyIdOf(Buffer.from(oldKey, 'base64')), keyIdOf(Buffer.from(newOne, 'base64'))]
  const times: Record<string, number> = {}
  let started = Date.now()
  const lap = (label: string) => {
    times[label] = Date.now() - started
    started = Date.now()
  }

  // 1. 10,000 records under the old key, through the store (the API would only add HTTP time).
  const seeded = await startTestApi(t, { dataDir, env: { RECORDS_ENCRYPTION_KEY: oldKey } })
  // Seeding only: no fsync per commit (the service itself runs with synchronous = FULL).
  if (!ON_POSTGRES) await sql`pragma synchronous = off`.execute(seeded.service.database.db)
  const expected = new Map<string, { module: string; values: Record<string, string> }>()
  for (const [module, count] of Object.entries(PER_MODULE)) {
    const spec = seeded.service.spec.moduleByName.get(module)!
    const encrypted = spec.fields.filter((f) => f.encrypted)
    // A few at a time: on PostgreSQL a create mostly waits on round trips.
    for (let from = 0; from < count; from += SEED_AT_ONCE) {
      const indexes = Array.from({ length: Math.min(SEED_AT_ONCE, count - from) }, (_, k) => from + k)
      await Promise.all(
        indexes.map(async (i) => {
          const values = Object.fromEntries(encrypted.map((f) => [f.name, valueOf(module, f.name, f.def.type, i)]))
          const record = await seeded.service.store.create(
            spec,
            { ...VALID[module]!(), ...values },
            { actor: 'sistema', reveal: false, user: null },
          )
          expected.set(String(record['_id']), { module, values })
        }),
      )
    }
  }
  t.equal(expected.size, TOTAL)
  // Every module here declares `retention:`: each record has its own data key (D41), wrapped by the
  // old key, and its values are under that key rather than under the old key directly.
  t.equal(await countUnder(seeded, oldId), TOTAL)
  await seeded.service.close()
  lap('seed 10k')

  // 2. New key active, old key decrypting; the rotation dies after about half the batches.
  const env = { RECORDS_ENCRYPTION_KEY: newOne, RECORDS_ENCRYPTION_OLD_KEYS: oldKey }
  const first = await startTestApi(t, { dataDir, env })
  t.equal(first.service.keys.targetId, newId, 'the configured first key is where the rotation goes')
  t.equal(first.service.keyring.activeId, oldId, 'until the rotation, writes stay under the active key')
  let seen = 0
  await t.rejects(
    rotate(first, ({ rewritten }) => {
      seen = rewritten
      if (rewritten >= TOTAL / 2) throw new Error('interrupted')
    }),
    /interrupted/,
  )
  t.equal(seen, TOTAL / 2, 'half the records were rewritten when it stopped')
  const halfway = await countUnder(first, oldId)
  // D41: the data keys are rewrapped first (cheap); what the batches rewrite is the blind indexes.
  t.equal(halfway, 0, 'no data key under the old key in between')
  t.equal(await countUnder(first, newId), TOTAL, 'every data key under the new key in between')
  t.same(
    (await verifyIntegrity(first.service.database, first.service.spec, first.service.codec)).problems,
    [],
    'consistent in between: each batch is one transaction',
  )
  await first.service.close()
  lap('first half')
  await t.rejects(
    startTestApi(t, { dataDir, env: { RECORDS_ENCRYPTION_KEY: newOne } }),
    /RECORDS_ENCRYPTION_KEY/,
    'the old key is still needed halfway',
  )

  // 3. Restart: the rotation resumes and finishes.
  const second = await startTestApi(t, { dataDir, env })
  const { rewritten } = await rotate(second)
  t.equal(rewritten, TOTAL / 2, 'the restart rewrites only what was left')
  t.equal(await countUnder(second, oldId), 0, 'no stored value under the retired key')
  t.equal((await rotate(second)).rewritten, 0, 'a further run has nothing to do')
  await second.service.close()
  lap('second half')

  // 4. The new key alone is enough, and every value reads back through the API.
  const only = await startTestApi(t, { dataDir, env: { RECORDS_ENCRYPTION_KEY: newOne } })
  const token = await only.adminToken()
  let checked = 0
  let wrong = 0
  for (const module of Object.keys(PER_MODULE)) {
    for (let offset = 0; ; offset += 1000) {
      const page = await only.request('GET', `/${module}?limit=1000&offset=${offset}`, { token })
      t.equal(page.status, 200)
      const records = page.body.data.records as Record<string, unknown>[]
      for (const record of records) {
        const want = expected.get(String(record['_id']))
        checked += 1
        if (want === undefined || Object.entries(want.values).some(([f, v]) => record[f] !== v)) wrong += 1
      }
      if (records.length < 1000) break
    }
  }
  t.equal(checked, TOTAL, 'every record listed')
  t.equal(wrong, 0, 'every value reads back as written')
  const sample = await only.request('GET', `/personal?nif=${valueOf('personal', 'nif', 'string', 1234)}`, { token })
  t.equal(sample.body.data.total, 1, 'D16: blind indexes were recomputed under the new key')
  lap('read back 10k')
  const report = await verifyIntegrity(only.service.database, only.service.spec, only.service.codec)
  t.same(report.problems, [], 'verifyIntegrity is clean after the rotation')
  t.ok(report.records >= TOTAL)
  const { rows } = await sql<{ n: number }>`select count(*) as n from _audit where action = 'recifrar'`.execute(
    only.service.database.db,
  )
  t.equal(Number(rows[0]?.n), TOTAL, 'one recifrar audit entry per record')
  lap('verify')
  if (ON_POSTGRES) {
    // PostgreSQL keeps superseded row versions until VACUUM (README, deployment): the live rows are checked here.
    const text = await storedText(only)
    t.notOk(text.includes(`v1.${oldId}.`), 'no row holds a ciphertext under the retired key')
    t.ok(text.includes(`v1.${newId}.`), 'while the new key id is found (the scan works)')
  }
  await only.service.close()

  if (!ON_POSTGRES) {
    // Not only the rows: no byte of any file keeps a ciphertext under the retired key (free page space included).
    const leftovers = filesUnder(dataDir).filter((f) => f.bytes.includes(Buffer.from(`v1.${oldId}.`)))
    t.same(
      leftovers.map((f) => f.path),
      [],
      'no file holds a ciphertext under the retired key',
    )
    t.ok(
      filesUnder(dataDir).some((f) => f.bytes.includes(Buffer.from(`v1.${newId}.`))),
      'while the new key id is found (the scan works)',
    )
  }
  t.comment(`times (ms): ${JSON.stringify(times)}`)
})
