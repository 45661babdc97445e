// `records keys generate|rotate`: new key material and the re-encryption of every value
// under retired keys, audited as 'recifrar' (key rotation from the command line, D14).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { api, createCli } from './support.js'

t.test('generate prints a fresh 32-byte key and its id', async (t) => {
  const cli = createCli(t)
  const run = await cli.run(['keys', 'generate', '--json'])
  t.equal(run.status, 0)
  const { key, keyId } = JSON.parse(run.stdout)
  t.equal(Buffer.from(key, 'base64').length, 32)
  t.match(keyId, /^[0-9a-f]{8}$/)
  const other = JSON.parse((await cli.run(['keys', 'generate', '--json'])).stdout)
  t.not(other.key, key, 'a new key every time')
  t.match((await cli.run(['keys', 'generate'])).stdout, /^[A-Za-z0-9+/]{43}=\n\(id de la clave: [0-9a-f]{8}\)\n$/)
})

t.test('--install then rotate: every value moves to the new key, readable, verified', async (t) => {
  const cli = createCli(t)
  const person = await cli.withService(
    async (service, token) =>
      (
        await api(service, token, 'POST', '/personal', {
          tip: 'T1',
          nombre: 'A',
          apellidos: 'B',
          escala: 'oficial',
          nif: '33333333C',
        })
      ).body.data._id as string,
  )
  const stored = () =>
    cli.raw((db) => (db.prepare('select nif from personal where _id = ?').get(person) as { nif: string }).nif)
  const oldId = stored().split('.')[1]

  const install = await cli.run(['keys', 'generate', '--install', '--json'])
  t.equal(install.status, 0)
  const { keyId } = JSON.parse(install.stdout)
  t.not(keyId, oldId)
  t.equal(
    readFileSync(join(cli.dataDir, 'encryption.key'), 'utf8').trim().split('\n').length,
    2,
    'the old key stays to decrypt',
  )

  const rotate = await cli.run(['keys', 'rotate', '--json'])
  t.equal(rotate.status, 0, rotate.stderr)
  t.match(JSON.parse(rotate.stdout), {
    activeKeyId: keyId,
    // D41: `personal` has record keys: its data key is rewrapped, its blind index rewritten; its
    // value and its kept version stay under the record's key, untouched.
    rewritten: 1,
    versions: 0,
    oldKeysRemovable: true,
    usage: { [keyId]: 1 },
  })
  t.match(stored(), /^r1\./, 'the value is under its record key, wrapped by the new key')
  t.match(
    cli.raw((db) => db.prepare("select action, record_id from _audit where action = 'recifrar'").all()),
    [{ record_id: person }],
  )
  await cli.withService(async (service, token) => {
    t.match(await api(service, token, 'GET', `/personal/${person}`), { body: { data: { nif: '33333333C' } } })
  })
  t.equal((await cli.run(['audit', 'verify'])).status, 0)
  t.match(
    (await cli.run(['keys', 'rotate'])).stdout,
    /^Rotación completa: 0 registros re-cifrados/,
    'running it again finds nothing left',
  )
})

t.test('--install refuses when the key comes from RECORDS_ENCRYPTION_KEY', async (t) => {
  const cli = createCli(t)
  const run = await cli.run(['keys', 'generate', '--install'], {
    env: { RECORDS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') },
  })
  t.equal(run.status, 1)
  t.match(run.stderr, /^records: RECORDS_ENCRYPTION_KEY está configurada/)
})

t.test('rotation with RECORDS_ENCRYPTION_KEY and RECORDS_ENCRYPTION_OLD_KEYS', async (t) => {
  const oldKey = Buffer.alloc(32, 1).toString('base64')
  const newKey = Buffer.alloc(32, 2).toString('base64')
  const cli = createCli(t, { RECORDS_ENCRYPTION_KEY: oldKey })
  t.equal(
    (
      await cli.run(['import', 'personal', '-', '--format', 'jsonl'], {
        input: JSON.stringify({ tip: 'T1', nombre: 'A', apellidos: 'B', escala: 'oficial', nif: '44444444D' }),
      })
    ).status,
    0,
  )
  const missing = await cli.run(['keys', 'rotate'], { env: { RECORDS_ENCRYPTION_KEY: newKey } })
  t.equal(missing.status, 1, 'the old key must still be configured')
  t.match(
    missing.stderr,
    /^records: La base de datos tiene valores cifrados con la clave '[0-9a-f]{8}', que no está configurada/,
  )
  const run = await cli.run(['keys', 'rotate'], {
    env: { RECORDS_ENCRYPTION_KEY: newKey, RECORDS_ENCRYPTION_OLD_KEYS: oldKey },
  })
  t.equal(run.status, 0, run.stderr)
  t.match(run.stdout, /^Rotación completa: 1 registros re-cifrados/)
  t.equal(
    (await cli.run(['audit', 'verify'], { env: { RECORDS_ENCRYPTION_KEY: newKey } })).status,
    0,
    'the new key alone is enough now',
  )
})
