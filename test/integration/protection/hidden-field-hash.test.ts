// F4, F5 (D17, D32): a caller who cannot read a field learns nothing about it. `_hash` covers a
// random per-record salt (`_sal`) shown only to a reader of every field in clear, so hashing a
// guess with the fields shown confirms nothing; a record written before salts has its `_hash`
// (and its entries' `record_hash`) withheld from such a caller; and text search ranks them by
// the fields they read only. A reader of every field still recomputes `_hash` (D17), and
// `records audit verify` proves salted and unsalted records alike.
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import fc from 'fast-check'
import t from 'tap'
import { formatExactTimestamp } from '../../../src/compile/time.js'
import type { ModuleSpec } from '../../../src/compile/types.js'
import { appendAudit } from '../../../src/db/audit/log.js'
import type { Row } from '../../../src/db/database.js'
import { readVersions, rowOfVersion, storeVersions } from '../../../src/db/records/versions.js'
import { verifyIntegrity } from '../../../src/db/operations/verify-integrity.js'
import { startTestApi, VALID, type TestApi } from '../../helpers/api.js'
import { canonical, expectedHash, rawRow } from './support.js'

type Json = Record<string, any>
const WRITES = new Set(['crear', 'importar', 'editar', 'eliminar'])

const denuncias = (api: TestApi): ModuleSpec => api.service.spec.moduleByName.get('denuncias')!
const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex')

/**
 * What a caller who knows every value but the salt computes for a version (the attack of F4):
 * the stored row of that version hashed as D17 says, without `_sal`.
 */
async function unsaltedGuesses(api: TestApi, id: string): Promise<Set<string>> {
  const spec = denuncias(api)
  const live = await rawRow(api, 'denuncias', id)
  const guesses = new Set([expectedHash(spec, { ...live, _sal: null })])
  for (const version of await readVersions(api.service.database.db, spec, id))
    guesses.add(api.service.codec.hash(spec, { ...rowOfVersion(spec, api.service.codec, live, version), _sal: null }))
  return guesses
}

/** Every `_hash` and `record_hash` in an answer, at any depth. */
function hashesIn(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) hashesIn(v, out)
  else if (value !== null && typeof value === 'object')
    for (const [key, v] of Object.entries(value)) {
      if ((key === '_hash' || key === 'record_hash') && typeof v === 'string') out.push(v)
      else hashesIn(v, out)
    }
  return out
}

/** Everything a caller reads of one record: GET, list, list with `fields=`, each version, history. */
async function answersFor(api: TestApi, token: string, id: string, versions: number): Promise<Json> {
  const get = async (path: string) => (await api.request('GET', path, { token })).body
  const list = (await get('/denuncias?limit=1000')).data.records.find((r: Json) => r['_id'] === id)
  const narrow = (await get('/denuncias?limit=1000&fields=descripcion')).data.records.find((r: Json) => r['_id'] === id)
  const past: Json[] = []
  for (let v = 1; v <= versions; v += 1) past.push((await get(`/denuncias/${id}?version=${v}`)).data)
  const history = (await get(`/denuncias/${id}/historial`)).data.entries.filter((e: Json) => WRITES.has(e['action']))
  return { one: (await get(`/denuncias/${id}`)).data, list, narrow, past, history }
}

/**
 * D17 as the docs tell a reader of every field: the answer's values, each encrypted one replaced
 * by its stored ciphertext, empty fields left out, metadata (`_sal` included, `_deleted` null
 * while live) in, `_hash` out.
 */
function recomputed(spec: ModuleSpec, answer: Json, ciphertexts: Row): string {
  const stored: Json = {}
  for (const [key, value] of Object.entries(answer)) {
    if (key === '_hash') continue
    const field = spec.fieldsByName.get(key)
    if (field !== undefined && (value === null || value === undefined)) continue
    stored[key] = field?.encrypted === true ? ciphertexts[field.column] : value
  }
  // A live record's `_deleted` is null in what is hashed, and absent from the answer.
  return sha256(canonical({ _deleted: null, ...stored }))
}

/** A denuncia as a release before salts wrote it: no `_sal`, its `_hash`, version and audit entry. */
async function legacyRecord(api: TestApi, id: string, values: Json): Promise<void> {
  const { database, codec, changes } = api.service
  const spec = denuncias(api)
  const stamp = '2025-06-01 10:00:00'
  await database.db.transaction().execute(async (trx) => {
    await codec.beforeWrite(trx)
    const row: Row = {
      _id: id,
      ...codec.encode(spec, values, id),
      _created: stamp,
      _created_by: 'legacy',
      _modified: stamp,
      _modified_by: 'legacy',
      _version: 1,
      _deleted: null,
      _sal: null,
    }
    row['_hash'] = codec.hash(spec, row)
    await trx.insertInto(spec.table.name).values(row).execute()
    await storeVersions(trx, spec, codec, [row])
    const event = {
      userId: 'legacy',
      action: 'importar' as const,
      module: spec.name,
      recordId: id,
      version: 1,
      recordHash: String(row['_hash']),
      fields: Object.keys(values),
    }
    await appendAudit({ database, trx, events: [event], at: formatExactTimestamp(new Date(), 'Europe/Madrid') })
    await changes.bump(trx, spec.name)
  })
}

t.test(
  'F4: consulta cannot confirm a guess of observaciones through _hash, ?version=N or the history; a reader of every field gets _sal and recomputes _hash (D17)',
  async (t) => {
    const api = await startTestApi(t)
    const admin = await api.adminToken()
    const consulta = (await api.userWithRole('consulta')).token
    const spec = denuncias(api)
    // No encrypted value: the only thing consulta does not know is the hidden note (and the salt).
    const plain = await api.create('denuncias', { ...VALID['denuncias']!(), observaciones: 'Confidente: Juan' })
    await api.request('PUT', `/denuncias/${plain._id}`, { token: admin, body: { descripcion: 'Ampliada' } })
    const seen = await answersFor(api, consulta, plain._id, 2)
    const text = JSON.stringify(seen)
    const raw = await rawRow(api, 'denuncias', plain._id)
    t.match(raw['_sal'], /^[0-9a-f]{32}$/, 'a random salt is stored with the record')
    t.notOk(text.includes('_sal') || text.includes(String(raw['_sal'])), 'consulta never gets the salt')
    t.notOk(text.includes('Confidente'), 'nor the note')
    const hashes = hashesIn(seen)
    t.equal(hashes.length, 3 + 2 + 2, 'consulta still gets each _hash and record_hash (salted: they tell nothing)')
    const guesses = await unsaltedGuesses(api, plain._id)
    t.equal(guesses.size, 2, 'one guess per version')
    t.notOk(
      hashes.some((h) => guesses.has(h)),
      'hashing the right guess with the fields shown matches no hash consulta received',
    )

    // A reader of every field in clear: `_sal` in every answer, and `_hash` recomputed from the
    // answer and the stored ciphertexts, for the record and each version.
    const rich = await api.create('denuncias', {
      ...VALID['denuncias']!(),
      denunciante_dni: '12345678Z',
      testigos: [{ nombre: 'Eva', dni: 'X1' }],
      observaciones: 'Nota',
    })
    await api.request('PUT', `/denuncias/${rich._id}`, { token: admin, body: { denunciante_dni: '87654321X' } })
    const full = await answersFor(api, admin, rich._id, 2)
    const stored = await rawRow(api, 'denuncias', rich._id)
    t.equal(full.one._sal, stored['_sal'])
    t.equal(full.list._sal, stored['_sal'], 'in lists')
    t.equal(full.narrow._sal, stored['_sal'], 'with fields= too')
    t.equal(recomputed(spec, full.one, stored), full.one._hash, 'the record')
    const versions = await readVersions(api.service.database.db, spec, rich._id)
    for (const [i, version] of versions.entries()) {
      const answer = full.past[i] as Json
      t.equal(answer['_sal'], stored['_sal'], `version ${version.version} keeps the record's salt`)
      const ciphertexts = api.service.codec.fromSnapshot(spec, version.data)
      t.equal(recomputed(spec, answer, ciphertexts), answer['_hash'], `version ${version.version}`)
      t.equal(full.history[i].record_hash, answer['_hash'], `its history entry names it`)
    }
    // Masked (consulta has no sanciones.descifrar) with no field hidden: not a reader of every
    // field in clear, so no salt; the salted `_hash` as everyone.
    const sancion = await api.create('sanciones', { ...VALID['sanciones']!(), infractor_dni: '12345678Z' })
    const masked = (await api.request('GET', `/sanciones/${sancion._id}`, { token: consulta })).body.data
    t.equal(masked.infractor_dni, '***')
    t.notOk('_sal' in masked, 'a masked reader gets no salt')
    t.equal(masked._hash, (await rawRow(api, 'sanciones', sancion._id))['_hash'], 'but the salted _hash')
  },
)

t.test(
  'F4: a record written before salts: its _hash and record_hash withheld from consulta, its next write salts it, and audit verify holds for both',
  async (t) => {
    const api = await startTestApi(t)
    const admin = await api.adminToken()
    const consulta = (await api.userWithRole('consulta')).token
    const id = 'DEN-2025-90001'
    await legacyRecord(api, id, { ...VALID['denuncias']!(), observaciones: 'Confidente: Ana' })
    const before = await rawRow(api, 'denuncias', id)
    t.equal(before['_sal'], null)

    const restricted = await answersFor(api, consulta, id, 1)
    t.same(hashesIn(restricted), [], 'no unsalted hash reaches consulta: GET, lists, ?version=1, history')
    t.equal(restricted.history.length, 1)
    t.equal(restricted.history[0].record_hash, null)
    const whole = await answersFor(api, admin, id, 1)
    t.equal(whole.one._hash, before['_hash'], 'a reader of every field still gets it')
    t.equal(whole.history[0].record_hash, before['_hash'])
    t.notOk('_sal' in whole.one)
    t.equal(recomputed(denuncias(api), whole.one, before), before['_hash'], 'and recomputes it as before (D17)')

    await api.request('PUT', `/denuncias/${id}`, { token: admin, body: { descripcion: 'Revisada' } })
    const after = await rawRow(api, 'denuncias', id)
    t.match(after['_sal'], /^[0-9a-f]{32}$/, 'its next write gives it a salt')
    const later = await answersFor(api, consulta, id, 2)
    t.equal(later.one._hash, after['_hash'], 'salted now: consulta gets its _hash')
    t.notOk('_hash' in later.past[0], 'not version 1 (unsalted)')
    t.equal(later.past[1]._hash, after['_hash'])
    t.same(
      later.history.map((e: Json) => e['record_hash']),
      [null, after['_hash']],
      'history: the unsalted version hidden, the salted one shown',
    )
    t.notOk(hashesIn(later).some((h) => h === before['_hash']))

    // The audit chain and every record, salted and unsalted, verify; a changed salt is caught.
    await legacyRecord(api, 'DEN-2025-90002', VALID['denuncias']!())
    await api.create('denuncias', VALID['denuncias']!())
    const verify = () => verifyIntegrity(api.service.database, api.service.spec, api.service.codec)
    t.same((await verify()).problems, [], 'records audit verify: intact')
    await api.service.database.db
      .updateTable('denuncias')
      .set({ _sal: '0'.repeat(32) })
      .where('_id', '=', id)
      .execute()
    t.same(
      (await verify()).problems.map((p) => [p.kind, p.recordId]),
      [['record_hash', id]],
      'a salt changed behind the service breaks the record hash',
    )
  },
)

/** An answer without what differs between any two records: ids, times, hashes (random: salted). */
function normalised(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalised)
  if (value === null || typeof value !== 'object') return value
  const out: Json = {}
  for (const [key, v] of Object.entries(value)) {
    if (['_id', '_created', '_modified', 'seq', 'at', 'record_id', 'hash', 'prev_hash'].includes(key)) continue
    out[key] = key === '_hash' || key === 'record_hash' ? typeof v : normalised(v)
  }
  return out
}

t.test(
  'F4, F5: for consulta, nothing of get, lists, versions, history or search order depends on observaciones',
  async (t) => {
    const api = await startTestApi(t)
    const admin = await api.adminToken()
    const consulta = (await api.userWithRole('consulta')).token
    const word = fc.stringMatching(/^[a-z]{3,8}$/)
    let run = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(word, { minLength: 0, maxLength: 2 }),
        fc.array(word, { minLength: 6, maxLength: 14 }),
        fc.boolean(),
        async (short, long, withTerm) => {
          run += 1
          // Letters only: a digit would make a separate word of the search (D32).
          const term = `termino${'abcdefghijklmnopqrst'[run % 20]}${'abcdefghijklmnopqrst'[Math.floor(run / 20) % 20]}`
          // The hidden note may hold the searched word too: it must neither match nor weigh.
          const notes = [short, long].map((words) => ['nota', ...(withTerm ? [term] : []), ...words].join(' '))
          const body = (note: string) => ({
            ...VALID['denuncias']!(),
            descripcion: `Hechos ${term}`,
            observaciones: note,
          })
          // Two pairs in opposite orders: a rank that weighed the note would put one pair out of creation order.
          const ids: string[] = []
          for (const note of [notes[0]!, notes[1]!, notes[1]!, notes[0]!])
            ids.push((await api.create('denuncias', body(note)))._id)
          for (const id of ids)
            await api.request('PUT', `/denuncias/${id}`, { token: admin, body: { lugar_hechos: 'Calle Nueva' } })
          const [a, b] = [await answersFor(api, consulta, ids[0]!, 2), await answersFor(api, consulta, ids[1]!, 2)]
          if (JSON.stringify(normalised(a)) !== JSON.stringify(normalised(b))) return false
          const found = (await api.request('GET', `/denuncias?q=${term}&limit=100`, { token: consulta })).body.data
          if (JSON.stringify(found.records.map((r: Json) => r['_id'])) !== JSON.stringify(ids)) return false
          const [x, y] = [found.records[0], found.records[1]]
          if (JSON.stringify(normalised(x)) !== JSON.stringify(normalised(y))) return false
          // A word only the note holds finds nothing for consulta.
          const hiddenOnly = (await api.request('GET', `/denuncias?q=${long[0]}${term}&limit=100`, { token: consulta }))
            .body.data.total
          await api.request('PUT', `/denuncias/${ids[1]}`, {
            token: admin,
            body: { observaciones: `${notes[1]} ${long[0]}${term}` },
          })
          const afterNote = (await api.request('GET', `/denuncias?q=${long[0]}${term}&limit=100`, { token: consulta }))
            .body.data.total
          return hiddenOnly === 0 && afterNote === 0
        },
      ),
      { numRuns: 6 },
    )
    t.pass('held for every run')
  },
)

t.test(
  'F4: a database migrated before salts gets `_sal` at its next start; its records keep their hash and verify',
  async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'records-test-'))
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
    const id = 'DEN-2025-90003'
    let modules: string[] = []
    let hash: unknown
    const stripped = new Set<string>()
    await t.test('a database as a release before salts left it', async (t) => {
      const api = await startTestApi(t, { dataDir })
      const { db } = api.service.database
      await legacyRecord(api, id, { ...VALID['denuncias']!(), observaciones: 'Antigua' })
      hash = (await rawRow(api, 'denuncias', id))['_hash']
      modules = api.service.spec.modules.map((m) => m.name)
      for (const name of modules) {
        // The accounts the test set up were written with a salt: dropping it breaks their hash, an
        // artefact of this simulation that verify below must name and nothing else.
        const salted = await sql<{ _id: string }>`select _id from ${sql.table(name)} where _sal is not null`.execute(db)
        for (const r of salted.rows) stripped.add(r._id)
        await sql`alter table ${sql.table(name)} drop column _sal`.execute(db)
      }
      const row = await db.selectFrom('_schema_state').select('snapshot').where('id', '=', 1).executeTakeFirstOrThrow()
      const snapshot = JSON.parse(String(row['snapshot'])) as {
        modules: Record<string, { table: { columns: { name: string }[] } }>
      }
      for (const module of Object.values(snapshot.modules))
        module.table.columns = module.table.columns.filter((c) => c.name !== '_sal')
      await db
        .updateTable('_schema_state')
        .set({ snapshot: JSON.stringify(snapshot) })
        .where('id', '=', 1)
        .execute()
    })
    await t.test('the next start adds the column, as safe steps; the old record reads and verifies', async (t) => {
      const api = await startTestApi(t, { dataDir })
      t.same(
        [...api.service.migrated].sort(),
        modules.map((name) => `Añadir la columna '_sal' a '${name}'`).sort(),
        'one step per module, applied at start, nothing else',
      )
      const raw = await rawRow(api, 'denuncias', id)
      t.equal(raw['_sal'], null)
      t.equal(raw['_hash'], hash, 'its hash unchanged')
      const verify = async () =>
        (await verifyIntegrity(api.service.database, api.service.spec, api.service.codec)).problems.filter(
          (p) => !(p.kind === 'record_hash' && stripped.has(p.recordId ?? '')),
        )
      t.ok(stripped.size > 0 && !stripped.has(id))
      t.same(await verify(), [], 'records audit verify: intact')
      const consulta = (await api.userWithRole('consulta')).token
      t.notOk('_hash' in (await api.request('GET', `/denuncias/${id}`, { token: consulta })).body.data)
      const admin = await api.adminToken()
      t.equal((await api.request('GET', `/denuncias/${id}`, { token: admin })).body.data._hash, hash)
      await api.request('PUT', `/denuncias/${id}`, { token: admin, body: { descripcion: 'Revisada' } })
      t.match((await rawRow(api, 'denuncias', id))['_sal'], /^[0-9a-f]{32}$/, 'salted by its next write')
      t.same(await verify(), [], 'and still intact')
    })
  },
)
