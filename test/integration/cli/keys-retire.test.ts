// `records keys retire <id>`: an old key leaves the registry and DATA_DIR/encryption.key only once
// `records keys status` says nothing uses it; never the active key. On SQLite, and on PostgreSQL
// under RECORDS_TEST_DATABASE=postgres.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { createChangeWatch } from '../../../src/db/change-watch.js'
import { createDatabase } from '../../../src/db/connect.js'
import { registeredKeys, switchActiveKey } from '../../../src/db/keys/registry.js'
import { ON_POSTGRES, createTestDatabase, urlOf } from '../../helpers/postgres.js'
import { api, createCli, type Cli } from './support.js'

const newCli = async (t: Test) => createCli(t, ON_POSTGRES ? { DATABASE_URL: urlOf(await createTestDatabase()) } : {})

const databaseUrlOf = (cli: Cli) => cli.env['DATABASE_URL'] ?? `sqlite:${join(cli.dataDir, 'records.db')}`

/** Works on the database directly: the state an interrupted rotation leaves, or the registry as stored. */
async function onDatabase<T>(cli: Cli, work: (database: Awaited<ReturnType<typeof createDatabase>>) => Promise<T>) {
  const database = await createDatabase(databaseUrlOf(cli))
  try {
    return await work(database)
  } finally {
    await database.close()
  }
}

const keyLines = (cli: Cli) => readFileSync(join(cli.dataDir, 'encryption.key'), 'utf8').trim().split('\n')

t.test('keys retire: refused while values need the key or it is the active one, then removes it', async (t) => {
  const cli = await newCli(t)
  await cli.withService(async (service, token) => {
    const created = await api(service, token, 'POST', '/personal', {
      tip: 'T1',
      nombre: 'A',
      apellidos: 'B',
      escala: 'oficial',
      nif: '33333333C',
    })
    t.equal(created.status, 201)
  })
  const oldId = JSON.parse((await cli.run(['keys', 'status', '--json'])).stdout).activeKeyId as string
  const active = await cli.run(['keys', 'retire', oldId])
  t.equal(active.status, 1)
  t.match(active.stderr, `records: La clave ${oldId} es la activa: no puede retirarse`)

  const { keyId: newId } = JSON.parse((await cli.run(['keys', 'generate', '--install', '--json'])).stdout)
  // What an interrupted rotation leaves: the new key active, the values still under the old one.
  await onDatabase(cli, (database) => switchActiveKey(database, createChangeWatch(database), newId))
  const used = await cli.run(['keys', 'retire', oldId])
  t.equal(used.status, 1)
  t.match(
    used.stderr,
    `records: 1 valor guardado sigue cifrado con la clave ${oldId}: ejecute records keys rotate`,
    'the data key of the record (D41), which the old key wraps; the command that moves it',
  )
  t.equal(keyLines(cli).length, 2, 'refused: the key file is untouched')
  t.ok((await onDatabase(cli, (d) => registeredKeys(d.db))).includes(oldId), 'and the registry too')

  t.equal((await cli.run(['keys', 'rotate', '--wait', '0'])).status, 0)
  const retired = await cli.run(['keys', 'retire', oldId, '--json'])
  t.equal(retired.status, 0, retired.stderr)
  t.match(JSON.parse(retired.stdout), { keyId: oldId, keyFile: join(cli.dataDir, 'encryption.key') })
  t.equal(keyLines(cli).length, 1, 'the file keeps the active key only')
  t.notOk((await onDatabase(cli, (d) => registeredKeys(d.db))).includes(oldId))
  const status = await cli.run(['keys', 'status', '--json'])
  t.equal(status.status, 0)
  t.match(JSON.parse(status.stdout), { activeKeyId: newId, oldKeys: [], oldKeysRemovable: true })
  const verify = await cli.run(['audit', 'verify', '--decrypt'])
  t.equal(verify.status, 0, verify.stdout + verify.stderr)
  const again = await cli.run(['keys', 'retire', oldId])
  t.equal(again.status, 1)
  t.match(again.stderr, `records: No hay ninguna clave ${oldId}`)
})
