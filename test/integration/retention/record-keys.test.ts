// D41: per-record data keys. A record of a module with `retention:` has its encrypted values under
// a key of its own, wrapped by the service key and kept apart from the database's backups (SQLite:
// records-keys.db beside the database, which `records backup` does not copy; PostgreSQL: the table
// _record_keys, left out of the documented pg_dump). A backup taken before an erasure, restored
// with the current key store, holds the erased record's ciphertext but cannot read it: the service
// answers the record as unreadable (null values, `_integridad`), never a 500 or garbage, and
// `records audit verify` names it apart, not as a problem.
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import Sqlite from 'better-sqlite3'
import t from 'tap'
import { createFieldCipher, keyIdOf } from '../../../src/db/crypto.js'
import {
  ERASED_KEYS_TABLE,
  openRecordKeys,
  RECORD_KEYS_TABLE,
  recordKeysFile,
} from '../../../src/db/keys/record-keys.js'
import { backupSqlite } from '../../../src/db/operations/backup.js'
import { createSqliteDatabase } from '../../../src/db/dialects/sqlite.js'
import { verifyIntegrity } from '../../../src/db/operations/verify-integrity.js'
import { databaseEnv, ON_POSTGRES, startTestApi, VALID, type TestApi } from '../../helpers/api.js'
import { createTestDatabase, urlOf } from '../../helpers/postgres.js'

const DNI = '44556677K'
const PHONE = '600111222'

const storedOf = async (api: TestApi, id: string): Promise<Record<string, unknown>> =>
  api.service.database.db.selectFrom('denuncias').selectAll().where('_id', '=', id).executeTakeFirstOrThrow()

t.test('D41: a backup taken before an erasure cannot read the erased record with the current key store', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-record-keys-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const api = await startTestApi(t, { dataDir })
  const admin = await api.adminToken()
  const erased = await api.create('denuncias', {
    ...VALID['denuncias']!(),
    denunciante_dni: DNI,
    denunciante_telefono: PHONE,
  })
  const kept = await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: '11111111H' })
  const erasedId = erased._id as string
  const spec = api.service.spec.moduleByName.get('denuncias')!
  const dniColumn = spec.fieldsByName.get('denunciante_dni')!.column
  const before = await storedOf(api, erasedId)
  t.match(String(before[dniColumn]), /^r1\.[0-9a-f]{16}\./, 'the value is under the record key')
  // An edit keeps the record's key: its versions and live row share it.
  t.equal((await api.request('PUT', `/denuncias/${erasedId}`, { token: admin, body: { tipo: 'robo' } })).status, 200)
  t.equal(
    String((await storedOf(api, erasedId))[dniColumn]).split('.')[1],
    String(before[dniColumn]).split('.')[1],
    'the same key after an edit',
  )
  const keysBefore = await api.service.recordKeys.count()

  // The backup: SQLite's `records backup` (its function), PostgreSQL's documented pg_dump.
  const backupDir = mkdtempSync(join(tmpdir(), 'records-record-keys-backup-'))
  t.teardown(() => rmSync(backupDir, { recursive: true, force: true }))
  const backup = join(backupDir, ON_POSTGRES ? 'copia.dump' : 'copia.db')
  const sourceUrl = ON_POSTGRES
    ? ((await databaseEnv(dataDir))['DATABASE_URL'] as string)
    : `sqlite:${api.service.database.location}`
  if (ON_POSTGRES)
    execFileSync('pg_dump', ['-Fc', `--exclude-table-data=${RECORD_KEYS_TABLE}`, '-f', backup, sourceUrl])
  else await backupSqlite(sourceUrl.slice('sqlite:'.length), backup)

  // The erasure destroys the record's key, and only its.
  const answer = await api.request('POST', `/retencion/denuncias/${erasedId}`, {
    token: admin,
    body: { decision: 'suprimir', motivo: 'Plazo cumplido (prueba de claves por registro)' },
  })
  t.equal(answer.status, 200)
  t.equal(await api.service.recordKeys.count(), keysBefore - 1, 'one data key destroyed')
  t.equal(
    (await api.request('GET', `/denuncias/${kept._id as string}`, { token: admin })).body.data.denunciante_dni,
    '11111111H',
  )
  await api.service.close()

  // Restore the backup with the current key store.
  let restoredUrl: string | undefined
  if (ON_POSTGRES) {
    const name = await createTestDatabase()
    restoredUrl = urlOf(name)
    execFileSync('pg_restore', ['--single-transaction', '--exit-on-error', '--no-owner', '-d', restoredUrl, backup])
    // The key store as it is now (docs/operators.md: its own dump, kept for a short time).
    const keys = join(backupDir, 'claves.dump')
    execFileSync('pg_dump', ['-Fc', '--data-only', `--table=${RECORD_KEYS_TABLE}`, '-f', keys, sourceUrl])
    execFileSync('pg_restore', ['--data-only', '--exit-on-error', '-d', restoredUrl, keys])
  } else {
    const file = sourceUrl.slice('sqlite:'.length)
    t.not(recordKeysFile(file), file)
    for (const suffix of ['-wal', '-shm']) rmSync(file + suffix, { force: true })
    copyFileSync(backup, file)
  }
  const restored = await startTestApi(t, {
    dataDir,
    ...(restoredUrl === undefined ? {} : { env: { DATABASE_URL: restoredUrl } }),
  })
  const token = await restored.adminToken()
  const stored = await storedOf(restored, erasedId)
  t.match(String(stored[dniColumn]), /^r1\./, 'the backup holds the erased record and its ciphertext')
  const read = await restored.request('GET', `/denuncias/${erasedId}`, { token })
  t.equal(read.status, 200, 'never a 500')
  t.equal(read.body.data.denunciante_dni, null)
  t.equal(read.body.data.denunciante_telefono, null)
  t.equal(read.body.data._integridad, 'error', 'reported as unreadable')
  t.same([...read.body.data._integridad_campos].sort(), ['denunciante_dni', 'denunciante_telefono'])
  t.notOk(JSON.stringify(read.body).includes(DNI) || JSON.stringify(read.body).includes(PHONE), 'no value, no garbage')
  const list = await restored.request('GET', '/denuncias?limit=100', { token })
  t.equal(list.status, 200, 'a list holding it answers too')
  const other = await restored.request('GET', `/denuncias/${kept._id as string}`, { token })
  t.equal(other.body.data.denunciante_dni, '11111111H', 'the records not erased read as before')
  const report = await verifyIntegrity(restored.service.database, restored.service.spec, restored.service.codec, 1, {
    keyIds: new Set(restored.service.keyring.keys.keys()),
    decrypt: true,
  })
  t.same(report.problems, [], 'the restored copy verifies: an erased record is no problem')
  t.same(report.destroyedKeys, [{ module: 'denuncias', recordId: erasedId }], 'and is named apart')
})

t.test('D41: records written before record keys are moved under them by records keys rotate', async (t) => {
  const api = await startTestApi(t)
  const admin = await api.adminToken()
  const spec = api.service.spec.moduleByName.get('denuncias')!
  const dniColumn = spec.fieldsByName.get('denunciante_dni')!.column
  const created = await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: '22334455M' })
  const id = created._id as string
  // As a record written before this change: its value under the service key (`v1`), no data key.
  const { cipher } = api.service.keys
  await api.service.database.db
    .updateTable('denuncias')
    .set({ [dniColumn]: cipher.encrypt('22334455M', `denuncias:${id}`) })
    .where('_id', '=', id)
    .execute()
  t.match(String((await storedOf(api, id))[dniColumn]), /^v1\./)
  t.equal((await api.request('GET', `/denuncias/${id}`, { token: admin })).body.data.denunciante_dni, '22334455M')
  const { rotateEncryption } = await import('../../../src/db/keys/rotation.js')
  await rotateEncryption({
    database: api.service.database,
    spec: api.service.spec,
    codec: api.service.codec,
    recordKeys: api.service.recordKeys,
    factors: api.service.factors,
    changes: api.service.changes,
    activeKeyId: api.service.keys.targetId,
    timezone: api.service.spec.service.timezone,
    clock: () => new Date(),
  })
  t.match(String((await storedOf(api, id))[dniColumn]), /^r1\./, 'moved under a record key')
  t.equal((await api.request('GET', `/denuncias/${id}`, { token: admin })).body.data.denunciante_dni, '22334455M')
  const found = await api.request('GET', '/denuncias?denunciante_dni=22334455M', { token: admin })
  t.equal(found.body.data.total, 1, 'the blind index still finds it (service key, D16)')
})

t.test('D41: a list of 100 records loads their keys in one query, not one per record', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-record-keys-list-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const api = await startTestApi(t, { dataDir })
  const spec = api.service.spec.moduleByName.get('denuncias')!
  const values = Array.from({ length: 100 }, (_, i) => ({ ...VALID['denuncias']!(), denunciante_dni: `X${i}` }))
  await api.service.store.createMany(spec, values, { actor: 'sistema' })
  await api.service.close()
  // A fresh process holds no data key.
  const again = await startTestApi(t, { dataDir })
  const token = await again.adminToken()
  const before = again.service.recordKeys.lookups()
  const page = await again.request('GET', '/denuncias?limit=100', { token })
  t.equal(page.status, 200)
  const records = page.body.data.records as Record<string, unknown>[]
  t.equal(records.length, 100)
  t.ok(
    records.every((r) => /^X\d+$/.test(String(r['denunciante_dni']))),
    'every value decrypted',
  )
  t.equal(again.service.recordKeys.lookups() - before, 1, 'one query for the 100 keys of the page')
  const second = again.service.recordKeys.lookups()
  t.equal((await again.request('GET', '/denuncias?limit=100', { token })).status, 200)
  t.equal(again.service.recordKeys.lookups(), second, 'none once they are held')
  // A held key is memory of its own, never a slice of the 8 KiB slab Node shares among small
  // Buffers: a slice keeps its whole slab alive as long as the key is held.
  const dni = spec.fieldsByName.get('denunciante_dni')!.column
  const stored = await again.service.database.db.selectFrom('denuncias').select(dni).execute()
  const held = stored.map((row) => again.service.recordKeys.keyOf(String(row[dni]).split('.')[1]!))
  t.equal(held.filter((key) => key !== undefined).length, 100, 'the page’s keys are held')
  t.ok(
    held.every((key) => key !== undefined && key.byteOffset === 0 && key.buffer.byteLength === key.length),
    'each in an ArrayBuffer of its own length',
  )
})

t.test('D41: a rotation never writes back a key an erasure destroyed after the rotation read it', async (t) => {
  const api = await startTestApi(t)
  const spec = api.service.spec.moduleByName.get('denuncias')!
  const erasedId = (await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: '55667788Z' }))
    ._id as string
  const keptId = (await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: '66778899S' }))
    ._id as string
  const keyOfRecord = async (recordId: string) =>
    String((await storedOf(api, recordId))[spec.fieldsByName.get('denunciante_dni')!.column]).split('.')[1]!
  const erasedKey = await keyOfRecord(erasedId)
  const keptKey = await keyOfRecord(keptId)
  // A second store over the same keys, as a rotation to a new service key sees them.
  const newKey = randomBytes(32)
  const { keyring } = api.service
  const rotated = createFieldCipher({
    activeId: keyIdOf(newKey),
    keys: new Map([[keyIdOf(newKey), newKey], ...keyring.keys]),
  })
  let read: readonly string[] = []
  const rotation = await openRecordKeys({
    database: api.service.database,
    cipher: rotated,
    // The erasure commits between the rotation's read of the batch and its write.
    beforeRewrapWrite: async (ids) => {
      read = ids
      // What an erasure does to the keys: note those its values name (in its transaction), destroy after.
      await api.service.recordKeys.noteErased(api.service.database.db, 'denuncias', erasedId, [erasedKey])
      await api.service.recordKeys.destroy(undefined, 'denuncias', erasedId)
    },
  })
  t.teardown(() => rotation.close())
  await rotation.rewrap()
  t.ok(read.includes(erasedKey), 'the rotation had read the key before the erasure')
  t.equal(await rotation.wrappingKeyOf(erasedKey), undefined, 'the destroyed key stays destroyed')
  t.equal(await rotation.wrappingKeyOf(keptKey), keyIdOf(newKey), 'the other key is under the new service key')
})

t.test('D41: a wrapped data key relabelled to another record does not unwrap', async (t) => {
  const api = await startTestApi(t)
  const spec = api.service.spec.moduleByName.get('denuncias')!
  const column = spec.fieldsByName.get('denunciante_dni')!.column
  const first = (await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: '77889900Q' }))
    ._id as string
  const second = (await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: '88990011W' }))
    ._id as string
  const value = String((await storedOf(api, first))[column])
  const keyId = value.split('.')[1]!
  // The first record's key row, relabelled as the second's.
  const own = ON_POSTGRES ? undefined : createSqliteDatabase({ file: recordKeysFile(api.service.database.location) })
  t.teardown(() => own?.close())
  await (own?.db ?? api.service.database.db)
    .updateTable(RECORD_KEYS_TABLE)
    .set({ record_id: second })
    .where('key_id', '=', keyId)
    .execute()
  const noted: string[] = []
  const fresh = await openRecordKeys({
    database: api.service.database,
    cipher: api.service.keys.cipher,
    onUnreadableKey: (failure) => noted.push(`${failure.keyId} ${failure.recordId}`),
  })
  t.teardown(() => fresh.close())
  await fresh.load([{ [column]: value }])
  t.equal(fresh.keyOf(keyId), undefined, 'the wrap names its record')
  t.ok(fresh.isUnreadable(keyId), 'known as unreadable, not as destroyed')
  t.notOk(fresh.isDestroyed(keyId))
  t.same(noted, [`${keyId} ${second}`], 'reported once')
})

t.test(
  'D41: new data keys are committed a batch at a time before any value uses them; a record with no encrypted value takes none',
  { skip: ON_POSTGRES ? 'PostgreSQL commits each new key on a connection of its own' : false },
  async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'records-record-keys-pool-'))
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
    const api = await startTestApi(t, { dataDir })
    const spec = api.service.spec.moduleByName.get('denuncias')!
    const column = spec.fieldsByName.get('denunciante_dni')!.column
    // Read from a connection of its own: what is committed, as a crash would leave it.
    const keyRows = () => {
      const db = new Sqlite(recordKeysFile(api.service.database.location), { readonly: true })
      try {
        return db.prepare("select key_id, record_id from _record_keys where module = 'denuncias'").all() as {
          key_id: string
          record_id: string
        }[]
      } finally {
        db.close()
      }
    }
    const ids: string[] = []
    for (let i = 0; i < 5; i++)
      ids.push(
        (await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: `2000000${i}X` }))._id as string,
      )
    const plain = (await api.create('denuncias', VALID['denuncias']!()))._id as string
    const used = await Promise.all(ids.map(async (id) => String((await storedOf(api, id))[column]).split('.')[1]!))
    const committed = keyRows()
    t.equal(committed.length, 64, 'one batch of keys, one commit')
    t.ok(
      committed.every((r) => r.record_id === ''),
      'a pooled key is made before its record: its row names none',
    )
    t.ok(
      used.every((keyId) => committed.some((r) => r.key_id === keyId)),
      'every value is under a key committed before it',
    )
    t.equal(new Set(used).size, 5, 'a key of its own for each record')
    const plainRow = await storedOf(api, plain)
    t.ok(
      spec.encryptedFields.every((f) => plainRow[f.column] === null),
      'the record without encrypted values',
    )
    await api.service.close()
    t.same(
      keyRows()
        .map((r) => r.key_id)
        .sort(),
      [...used].sort(),
      'took no key: closing leaves only the keys values use',
    )
    // The erasure of a record with a pooled key destroys that key: its values name it.
    const again = await startTestApi(t, { dataDir })
    const token = await again.adminToken()
    const erased = await again.request('POST', `/retencion/denuncias/${ids[0]}`, {
      token,
      body: { decision: 'suprimir', motivo: 'Plazo cumplido (prueba de claves en lote)' },
    })
    t.equal(erased.status, 200)
    t.equal(await again.service.recordKeys.wrappingKeyOf(used[0]!), undefined, 'its key is destroyed')
    t.ok(await again.service.recordKeys.wrappingKeyOf(used[1]!), 'the others stay')
    const noted = await again.service.database.db.selectFrom(ERASED_KEYS_TABLE).selectAll().execute()
    t.same(noted, [], 'and the note of its keys goes with them')
  },
)
