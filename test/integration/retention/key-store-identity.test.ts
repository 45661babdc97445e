// D41: an SQLite database and its key store (`records-keys.db`) share an identity written at
// creation. A records database whose values are under record keys does not open with its key store
// missing or with another installation's: the start is refused naming the file and pointing at its
// restore (docs/operators.md), and no empty key store is left in its place. A records database
// from before the identity opens and takes it; so does one from before record keys existed.
import Sqlite from 'better-sqlite3'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { KEY_STORE_IDENTITY_TABLE } from '../../../src/db/keys/key-store-identity.js'
import { recordKeysFile } from '../../../src/db/keys/record-keys.js'
import { ON_POSTGRES, startTestApi, VALID } from '../../helpers/api.js'

const SKIP = { skip: ON_POSTGRES ? 'PostgreSQL keeps the keys in the same database' : false }

/** A data directory with one denuncia (under its record key) and the service stopped; its files. */
async function installation(t: Test, records = 1) {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-key-identity-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const api = await startTestApi(t, { dataDir })
  const ids: string[] = []
  for (let i = 0; i < records; i++)
    ids.push((await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: `1234567${i}Z` }))._id)
  const file = api.service.database.location
  await api.service.close()
  return { dataDir, file, keyFile: recordKeysFile(file), ids }
}

const removeFile = (file: string) => {
  for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true })
}

/** As a file written before identities existed: the table gone. */
const dropIdentity = (file: string) => {
  const db = new Sqlite(file)
  db.exec(`drop table if exists ${KEY_STORE_IDENTITY_TABLE}`)
  db.close()
}

t.test('D41: a missing key store refuses the start, naming the file, and none is created', SKIP, async (t) => {
  const { dataDir, keyFile } = await installation(t)
  removeFile(keyFile)
  await t.rejects(startTestApi(t, { dataDir }), {
    code: 'SETTING_INVALID',
    message: new RegExp(`Falta el almacén de claves.*${keyFile.replace(/[.]/g, '\\.')}.*docs/operators\\.md`),
  })
  t.notOk(existsSync(keyFile), 'no empty key store left behind')
})

t.test('D41: a records database from before identities with its key store missing is refused too', SKIP, async (t) => {
  const { dataDir, file, keyFile } = await installation(t)
  dropIdentity(file)
  removeFile(keyFile)
  await t.rejects(startTestApi(t, { dataDir }), { code: 'SETTING_INVALID', message: /Falta el almacén de claves/ })
})

t.test("D41: another installation's key store is refused", SKIP, async (t) => {
  const mine = await installation(t)
  const other = await installation(t, 0)
  removeFile(mine.keyFile)
  const from = new Sqlite(other.keyFile)
  await from.backup(mine.keyFile)
  from.close()
  await t.rejects(startTestApi(t, { dataDir: mine.dataDir }), {
    code: 'SETTING_INVALID',
    message: /no es el de esta base de datos/,
  })
})

t.test('D41: databases from before identities open, and read their values', SKIP, async (t) => {
  const { dataDir, file, keyFile, ids } = await installation(t)
  dropIdentity(file)
  dropIdentity(keyFile)
  const api = await startTestApi(t, { dataDir })
  const token = await api.adminToken()
  t.equal((await api.request('GET', `/denuncias/${ids[0]}`, { token })).body.data.denunciante_dni, '12345670Z')
  await api.service.close()
  // The identity is now in both: the key store cannot go missing unnoticed.
  removeFile(keyFile)
  await t.rejects(startTestApi(t, { dataDir }), { code: 'SETTING_INVALID' })
})

t.test('D41: a records database from before record keys opens without its key store', SKIP, async (t) => {
  const { dataDir, file, keyFile } = await installation(t, 0)
  dropIdentity(file)
  removeFile(keyFile)
  const api = await startTestApi(t, { dataDir })
  t.ok(existsSync(keyFile), 'a key store is created')
  const created = await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: '99999999R' })
  t.equal(
    (await api.request('GET', `/denuncias/${created._id}`, { token: await api.adminToken() })).body.data
      .denunciante_dni,
    '99999999R',
  )
})
