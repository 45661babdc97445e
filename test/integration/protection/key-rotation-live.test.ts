// One rule at a time: two services open on one database (in this process, so
// each step can be placed exactly: a key installed, an instance not yet told, a rotation
// switched but not yet finished). The process-level run is
// test/integration/multi-instance/rotation-while-running.test.ts.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import t, { type Test } from 'tap'
import { keyIdOf } from '../../../src/db/crypto.js'
import { switchActiveKey } from '../../../src/db/keys/registry.js'
import { rotateEncryption } from '../../../src/db/keys/rotation.js'
import { verifyIntegrity } from '../../../src/db/operations/verify-integrity.js'
import { databaseEnv, startTestApi, VALID, type TestApi } from '../../helpers/api.js'
import { runRecords } from '../../helpers/records-cli.js'
import { newKey, rawRow } from './support.js'

const idOf = (key: string) => keyIdOf(Buffer.from(key, 'base64'))

/** A data directory whose key file holds `key`, removed at the end. */
function dataDirWith(t: Test, key: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'records-rotation-rules-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'encryption.key'), `${key}\n`, { mode: 0o600 })
  return dir
}

/** `records keys generate --install`: the new key first in the file, the old ones below. */
function install(dir: string, key: string): void {
  const file = join(dir, 'encryption.key')
  writeFileSync(file, `${key}\n${readFileSync(file, 'utf8')}`, { mode: 0o600 })
}

const rotate = (api: TestApi) =>
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
  })

/** The field key a stored value is under: its own, or (D41) the one wrapping its record's data key. */
async function keyOfStored(api: TestApi, module: string, id: string, column: string): Promise<string | undefined> {
  const [version, keyId] = String((await rawRow(api, module, id))[column]).split('.')
  return version === 'r1' ? api.service.recordKeys.wrappingKeyOf(keyId ?? '') : keyId
}

t.test('an instance never writes under a key a rotation retired, even before it rereads its keys', async (t) => {
  const [oldKey, next] = [newKey(), newKey()]
  const dir = dataDirWith(t, oldKey)
  const running = await startTestApi(t, { dataDir: dir })
  install(dir, next)
  // The rotation (another process) switches the active key; `running` has not had a heartbeat since.
  const cli = await startTestApi(t, { dataDir: dir })
  await rotate(cli)
  const created = await running.create('personal', { ...VALID['personal']!(), nif: 'NIF-DESPUES' })
  t.equal(
    await keyOfStored(running, 'personal', created._id, 'nif'),
    idOf(next),
    'written under the active key, read from the file on the spot',
  )
  t.equal(running.service.keyring.activeId, idOf(next))
})

t.test(
  'an instance whose fixed keys lack the active key answers 503 instead of writing under an old key',
  async (t) => {
    const [oldKey, next] = [newKey(), newKey()]
    const dir = dataDirWith(t, oldKey)
    // Keys from the environment cannot change while the process runs.
    const fixed = await startTestApi(t, { dataDir: dir, env: { RECORDS_ENCRYPTION_KEY: oldKey } })
    install(dir, next)
    const cli = await startTestApi(t, { dataDir: dir })
    await switchActiveKey(cli.service.database, cli.service.changes, idOf(next)) // a switch that did not wait for it
    const refused = await fixed.request('POST', '/personal', {
      token: await fixed.adminToken(),
      body: { ...VALID['personal']!(), nif: 'NIF-FIJA' },
    })
    t.equal(refused.status, 503)
    t.match(refused.body, { success: false, error: 'Servicio no disponible' })
    t.equal(
      (await cli.request('GET', '/personal?nif=NIF-FIJA', { token: await cli.adminToken() })).body.data.total,
      0,
      'nothing written',
    )
  },
)

t.test('during a rotation a unique encrypted value is refused under either key', async (t) => {
  const [oldKey, next] = [newKey(), newKey()]
  const dir = dataDirWith(t, oldKey)
  const api = await startTestApi(t, { dataDir: dir })
  const first = await api.create('personal', { ...VALID['personal']!(), nif: 'NIF-UNICO' })
  const other = await api.create('personal', { ...VALID['personal']!(), nif: 'NIF-OTRO' })
  install(dir, next)
  await api.service.keys.refresh()
  // Switched but not re-encrypted yet: NIF-UNICO is indexed under the old key only.
  await switchActiveKey(api.service.database, api.service.changes, idOf(next))
  const token = await api.adminToken()
  const again = await api.request('POST', '/personal', { token, body: { ...VALID['personal']!(), nif: 'NIF-UNICO' } })
  t.equal(again.status, 409, 'create: same value under the new key is a conflict')
  t.match(again.body, { success: false, details: [{ field: 'nif' }] })
  const edit = await api.request('PUT', `/personal/${other._id}`, { token, body: { nif: 'NIF-UNICO' } })
  t.equal(edit.status, 409, 'update: the same')
  t.equal(
    (await api.request('PUT', `/personal/${first._id}`, { token, body: { nif: 'NIF-UNICO' } })).status,
    200,
    'a record keeps its own value',
  )
  t.equal((await api.request('GET', '/personal?nif=NIF-UNICO', { token })).body.data.total, 1)
})

t.test('a blind-index search keeps total and page together while another process rotates', async (t) => {
  const [oldKey, next] = [newKey(), newKey()]
  const dir = dataDirWith(t, oldKey)
  const api = await startTestApi(t, { dataDir: dir })
  const token = await api.adminToken()
  const made = await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: '12345678Z' })
  const search = () => api.request('GET', '/denuncias?denunciante_dni=12345678Z', { token })
  t.equal((await search()).body.data.total, 1, 'the total is now cached until the module changes')
  install(dir, next)
  await api.service.keys.refresh()
  await rotate(await startTestApi(t, { dataDir: dir }))
  const found = await search()
  t.match(found.body.data, { total: 1, records: [{ _id: made._id, denunciante_dni: '12345678Z' }] })
  t.equal((await api.request('GET', `/denuncias/${made._id}`, { token })).status, 200, 'the rotated record reads back')
})

t.test('audit verify names every value the configured keys cannot read', async (t) => {
  const key = newKey()
  const api = await startTestApi(t, { dataDir: dataDirWith(t, key) })
  const a = await api.create('personal', { ...VALID['personal']!(), nif: 'NIF-A' })
  const b = await api.create('personal', { ...VALID['personal']!(), nif: 'NIF-B' })
  const { database, spec, codec } = api.service
  const stored = String((await rawRow(api, 'personal', a._id))['nif'])
  // One value under a key nobody configured (D41: a data key the key store never held), one whose
  // ciphertext was altered.
  const unknown = stored.startsWith('r1.')
    ? stored.replace(/^r1\.[0-9a-f]{16}\./, 'r1.deadbeefdeadbeef.')
    : stored.replace(idOf(key), 'deadbeef')
  await sql`update personal set nif = ${unknown} where _id = ${a._id}`.execute(database.db)
  const other = String((await rawRow(api, 'personal', b._id))['nif'])
  await sql`update personal set nif = ${`${other.slice(0, -2)}${other.endsWith('AA') ? 'BB' : 'AA'}`} where _id = ${b._id}`.execute(
    database.db,
  )
  const keyIds = new Set(api.service.keyring.keys.keys())
  const quick = await verifyIntegrity(database, spec, codec, 1, { keyIds })
  t.match(
    quick.problems.filter((p) => p.kind === 'record_key'),
    [{ module: 'personal', recordId: a._id, field: 'nif', message: /deadbeef/ }],
  )
  const full = await verifyIntegrity(database, spec, codec, 1, { keyIds, decrypt: true })
  t.same(
    full.problems
      .filter((p) => p.kind === 'record_key')
      .map((p) => p.recordId)
      .sort(),
    [a._id, b._id].sort(),
    '--decrypt also finds the altered one',
  )
})

t.test('keys rotate changes nothing while a running instance lacks the new key', async (t) => {
  const [oldKey, next] = [newKey(), newKey()]
  const dir = dataDirWith(t, oldKey)
  const heartbeat = { INSTANCE_HEARTBEAT_SECONDS: '1' }
  const fixed = await startTestApi(t, { dataDir: dir, env: { ...heartbeat, RECORDS_ENCRYPTION_KEY: oldKey } })
  const made = await fixed.create('personal', { ...VALID['personal']!(), nif: 'NIF-QUIETO' })
  const env = {
    DATA_DIR: dir,
    MODULES_FILE: new URL('../../../modules.yaml', import.meta.url).pathname,
    ...(await databaseEnv(dir)),
    RECORDS_ENCRYPTION_KEY: next,
    RECORDS_ENCRYPTION_OLD_KEYS: oldKey,
  }
  const run = await runRecords(env, ['keys', 'rotate', '--wait', '3'])
  t.equal(run.status, 1, run.stderr)
  t.match(run.stdout, /^No se ha cambiado nada: esta instancia en marcha no tiene la clave nueva/)
  t.match(run.stdout, new RegExp(`pid ${process.pid} .*claves ${idOf(oldKey)}`))
  t.equal(await keyOfStored(fixed, 'personal', made._id, 'nif'), idOf(oldKey), 'nothing re-encrypted')
  t.equal(fixed.service.keyring.activeId, idOf(oldKey))
  const status = await runRecords(env, ['keys', 'status'])
  t.match(status.stdout, /Clave activa: /)
  t.equal(status.status, 1, 'old key still in use: status says not to remove it')
  t.match(status.stdout, /NO quite todavía las claves anteriores/)
})
