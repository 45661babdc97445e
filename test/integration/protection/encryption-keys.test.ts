// D1/D14: the key comes from RECORDS_ENCRYPTION_KEY or a key file generated once
// in DATA_DIR (mode 0600); a wrong or missing key is a clear startup error, never garbage;
// keys listed in RECORDS_ENCRYPTION_OLD_KEYS keep decrypting what they encrypted.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { keyIdOf } from '../../../src/db/crypto.js'
import { switchActiveKey } from '../../../src/db/keys/registry.js'
import { startTestApi, VALID, type TestApi } from '../../helpers/api.js'
import { markerFor, newKey, rawRow } from './support.js'

function tempDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'records-keys-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/**
 * Creates a denuncia with `dni` and answers the service key its encrypted value is under: the
 * value's own key id (`v1.`), or for a value under the record's data key (`r1.`, D41) the key
 * that wrapped that new data key (the one whose count of wrapped keys grew).
 */
async function createUnder(api: TestApi, dni: string): Promise<{ id: string; serviceKey: string | undefined }> {
  const usage = async () => api.service.recordKeys.wrapUsage()
  const before = await usage()
  const { _id: id } = await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: dni })
  const stored = String((await rawRow(api, 'denuncias', id))['denunciante_dni'])
  if (!stored.startsWith('r1.')) return { id, serviceKey: stored.split('.')[1] }
  const after = await usage()
  return { id, serviceKey: [...after].find(([key, n]) => n > (before.get(key) ?? 0))?.[0] }
}

/** Opens a service on `dataDir`, writes one denuncia with an encrypted value, closes it. */
async function writeOne(t: Test, dataDir: string, env: Record<string, string> = {}) {
  const api = await startTestApi(t, { dataDir, env })
  const dni = markerFor(api.service.spec.moduleByName.get('denuncias')!.fieldsByName.get('denunciante_dni')!)
  const { id, serviceKey } = await createUnder(api, dni)
  await api.service.close()
  return { id, dni, serviceKey }
}

t.test('D1: without RECORDS_ENCRYPTION_KEY a key file is generated once in DATA_DIR with mode 0600', async (t) => {
  const dataDir = tempDir(t)
  const { serviceKey } = await writeOne(t, dataDir)
  const file = join(dataDir, 'encryption.key')
  t.equal(statSync(file).mode & 0o777, 0o600, 'owner-only')
  const key = readFileSync(file, 'utf8').trim()
  t.equal(Buffer.from(key, 'base64').length, 32, 'a base64 32-byte key')
  t.equal(serviceKey, keyIdOf(Buffer.from(key, 'base64')), 'values are under that key (D14, D41)')
  const again = await writeOne(t, dataDir)
  t.equal(readFileSync(file, 'utf8').trim(), key, 'a second start reuses the file')
  t.equal(again.serviceKey, keyIdOf(Buffer.from(key, 'base64')))
})

t.test('a different RECORDS_ENCRYPTION_KEY on existing data refuses to start, naming the variable', async (t) => {
  const dataDir = tempDir(t)
  const oldKey = newKey()
  const { id, dni } = await writeOne(t, dataDir, { RECORDS_ENCRYPTION_KEY: oldKey })

  const newOne = newKey()
  await t.rejects(
    startTestApi(t, { dataDir, env: { RECORDS_ENCRYPTION_KEY: newOne } }),
    /RECORDS_ENCRYPTION_KEY/,
    'wrong key: clear error',
  )
  await t.rejects(
    startTestApi(t, { dataDir, env: { RECORDS_ENCRYPTION_KEY: newOne } }),
    new RegExp(keyIdOf(Buffer.from(oldKey, 'base64'))),
    'the error names the missing key id',
  )
  // No key configured at all: a fresh key file is generated, which is just another wrong key.
  await t.rejects(startTestApi(t, { dataDir }), /RECORDS_ENCRYPTION_KEY/, 'missing key: clear error')
  await t.rejects(
    startTestApi(t, { dataDir, env: { RECORDS_ENCRYPTION_KEY: 'corta' } }),
    /RECORDS_ENCRYPTION_KEY.*32 bytes/,
    'malformed key: clear error',
  )

  const api = await startTestApi(t, {
    dataDir,
    env: { RECORDS_ENCRYPTION_KEY: newOne, RECORDS_ENCRYPTION_OLD_KEYS: oldKey },
  })
  const token = await api.adminToken()
  const read = await api.request('GET', `/denuncias/${id}`, { token })
  t.equal(read.body.data?.denunciante_dni, dni, 'the old key decrypts what it encrypted')
  const found = await api.request('GET', `/denuncias?denunciante_dni=${dni}`, { token })
  t.equal(found.body.data?.total, 1, 'D16: the blind index under the old key still matches')
  t.equal(
    (await createUnder(api, dni)).serviceKey,
    keyIdOf(Buffer.from(oldKey, 'base64')),
    'until a rotation switches it, writes stay under the active key',
  )
  await switchActiveKey(api.service.database, api.service.changes, keyIdOf(Buffer.from(newOne, 'base64')))
  t.equal(
    (await createUnder(api, dni)).serviceKey,
    keyIdOf(Buffer.from(newOne, 'base64')),
    'once switched, new writes use the new key',
  )
  const both = await api.request('GET', `/denuncias?denunciante_dni=${dni}`, { token })
  t.equal(both.body.data?.total, 3, 'the filter finds values under both keys')
  await api.service.close()

  // Dropping the old key before a rotation is refused: some values still need it.
  await t.rejects(startTestApi(t, { dataDir, env: { RECORDS_ENCRYPTION_KEY: newOne } }), /RECORDS_ENCRYPTION_OLD_KEYS/)
})

t.test('the old key given as the only key still works (the new one never wrote)', async (t) => {
  const dataDir = tempDir(t)
  const key = newKey()
  const { id, dni } = await writeOne(t, dataDir, { RECORDS_ENCRYPTION_KEY: key, RECORDS_ENCRYPTION_OLD_KEYS: newKey() })
  const api = await startTestApi(t, { dataDir, env: { RECORDS_ENCRYPTION_KEY: key } })
  const read = await api.request('GET', `/denuncias/${id}`, { token: await api.adminToken() })
  t.equal(read.body.data?.denunciante_dni, dni)
})
