// `records restore <backup>`: a backup back in place on SQLite, checked first, the current
// database kept aside; refused (nothing touched) for a file that is not a backup, while the
// service runs, and on PostgreSQL (its procedure is pg_restore, docs/operators.md).
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import t from 'tap'
import { VALID } from '../../helpers/api.js'
import { api, createCli, noStack } from './support.js'

const ITEM = { tipo: 'radio', nombre: 'Emisora portátil' }

t.test('backup, change, restore: the data is back, the old database kept aside, the audit verifies', async (t) => {
  const cli = createCli(t)
  const first = await cli.withService(async (service, token) => {
    const created = await api(service, token, 'POST', '/equipamiento', ITEM)
    t.equal(created.status, 201)
    return created.body.data._id as string
  })
  const backup = join(cli.dataDir, 'copia.db')
  t.equal((await cli.run(['backup', backup])).status, 0)
  const second = await cli.withService(async (service, token) => {
    t.equal((await api(service, token, 'DELETE', `/equipamiento/${first}`)).status, 200)
    return (await api(service, token, 'POST', '/equipamiento', { ...ITEM, nombre: 'Otra' })).body.data._id as string
  })

  const restored = await cli.run(['restore', backup, '--json'])
  t.equal(restored.status, 0, restored.stderr)
  const result = JSON.parse(restored.stdout)
  t.match(result, { restored: join(cli.dataDir, 'records.db'), from: backup, auditEntries: Number })
  t.match(result.previous, /records\.db\.antes-de-restaurar-/)
  t.equal(statSync(result.previous).mode & 0o777, 0o600, 'the previous database is kept, private')
  t.equal(statSync(join(cli.dataDir, 'records.db')).mode & 0o777, 0o600)
  t.notOk(
    readdirSync(cli.dataDir).some((name) => name.includes('restaurando')),
    'no staged copy left',
  )
  await cli.withService(async (service, token) => {
    t.equal((await api(service, token, 'GET', `/equipamiento/${first}`)).status, 200, 'the backed-up record is back')
    t.equal((await api(service, token, 'GET', `/equipamiento/${second}`)).status, 404, 'the later one is not')
  })
  const verify = await cli.run(['audit', 'verify'])
  t.equal(verify.status, 0, verify.stdout)
})

t.test('a file that is not a database of this service is refused and nothing is touched', async (t) => {
  const cli = createCli(t)
  t.equal((await cli.run(['migrate'])).status, 0)
  const database = join(cli.dataDir, 'records.db')
  const before = readFileSync(database)
  const listing = readdirSync(cli.dataDir).sort()
  const junk = join(cli.dataDir, 'no-es-copia.db')
  writeFileSync(junk, 'esto no es una base de datos '.repeat(200))
  const refused = await cli.run(['restore', junk])
  t.equal(refused.status, 1)
  t.match(refused.stderr, `records: ${junk} no es una base de datos SQLite`)
  t.ok(noStack(refused))
  t.same(readFileSync(database), before, 'the database is untouched')
  t.same(readdirSync(cli.dataDir).sort(), [...listing, 'no-es-copia.db'].sort(), 'nothing added or left behind')
  const missing = await cli.run(['restore', join(cli.dataDir, 'no-existe.db')])
  t.equal(missing.status, 1)
  t.match(missing.stderr, /^records: No existe el fichero/)
})

t.test('a backup whose records were altered after the fact is refused: its audit does not verify', async (t) => {
  const cli = createCli(t)
  await cli.withService(async (service, token) => {
    t.equal((await api(service, token, 'POST', '/equipamiento', ITEM)).status, 201)
  })
  const backup = join(cli.dataDir, 'copia.db')
  t.equal((await cli.run(['backup', backup])).status, 0)
  const altered = new BetterSqlite3(backup)
  altered.prepare("update equipamiento set nombre = 'Cambiada a mano'").run()
  altered.close()
  const before = readFileSync(join(cli.dataDir, 'records.db'))
  const refused = await cli.run(['restore', backup])
  t.equal(refused.status, 1)
  t.match(refused.stderr, `records: ${backup} no supera la verificación de la auditoría`)
  t.same(readFileSync(join(cli.dataDir, 'records.db')), before, 'the database is untouched')
  t.notOk(readdirSync(cli.dataDir).some((name) => name.includes('restaurando') || name.includes('antes-de')))
})

t.test(
  'D41: checking a backup never destroys keys of the live store, even for an id a live record reuses',
  async (t) => {
    const cli = createCli(t)
    t.equal((await cli.run(['migrate'])).status, 0)
    const empty = join(cli.dataDir, 'vacia.db')
    t.equal((await cli.run(['backup', empty])).status, 0)
    // A record erased (its tombstone in the database), then a backup holding that tombstone.
    const erased = await cli.withService(async (service, token) => {
      const created = await api(service, token, 'POST', '/denuncias', VALID['denuncias']!())
      t.equal(created.status, 201)
      t.equal((await api(service, token, 'POST', '/equipamiento', ITEM)).status, 201)
      const id = created.body.data._id as string
      const erasure = await api(service, token, 'POST', `/retencion/denuncias/${id}`, {
        decision: 'suprimir',
        motivo: 'Plazo cumplido (prueba de restauración)',
      })
      t.equal(erasure.status, 200)
      return id
    })
    const withTombstone = join(cli.dataDir, 'con-lapida.db')
    t.equal((await cli.run(['backup', withTombstone])).status, 0)
    // Back to the empty backup: SQLite gives the erased id to the next record.
    t.equal((await cli.run(['restore', empty])).status, 0)
    const DNI = '99887766F'
    const reused = await cli.withService(async (service, token) => {
      const created = await api(service, token, 'POST', '/denuncias', {
        ...VALID['denuncias']!(),
        denunciante_dni: DNI,
      })
      t.equal(created.status, 201)
      return created.body.data._id as string
    })
    t.equal(reused, erased, 'the live record reuses the erased id')
    // The backup with the tombstone, altered so that its check refuses it.
    const altered = new BetterSqlite3(withTombstone)
    altered.prepare("update equipamiento set nombre = 'Cambiada a mano'").run()
    altered.close()
    const refused = await cli.run(['restore', withTombstone])
    t.equal(refused.status, 1)
    t.match(refused.stderr, 'no supera la verificación de la auditoría')
    await cli.withService(async (service, token) => {
      const read = await api(service, token, 'GET', `/denuncias/${reused}`)
      t.equal(read.status, 200)
      t.equal(read.body.data.denunciante_dni, DNI, 'the live record keeps its key')
      t.not(read.body.data._integridad, 'error')
    })
  },
)

t.test('refused while the service runs on the database', async (t) => {
  const cli = createCli(t)
  const backup = join(cli.dataDir, 'copia.db')
  t.equal((await cli.run(['migrate'])).status, 0)
  t.equal((await cli.run(['backup', backup])).status, 0)
  await cli.withService(async () => {
    const refused = await cli.run(['restore', backup])
    t.equal(refused.status, 1)
    t.match(refused.stderr, /^records: El servicio está en marcha sobre .*deténgalo antes de restaurar/)
  })
  t.notOk(readdirSync(cli.dataDir).some((name) => name.includes('antes-de-restaurar')))
})

t.test('on PostgreSQL it refuses and points at the documented pg_restore procedure', async (t) => {
  const cli = createCli(t, { DATABASE_URL: 'postgres://records@127.0.0.1:5432/records' })
  writeFileSync(join(cli.dataDir, 'copia.dump'), 'x')
  const refused = await cli.run(['restore', 'copia.dump'])
  t.equal(refused.status, 1)
  t.match(refused.stderr, /^records: records restore es para SQLite; en PostgreSQL restaure con pg_restore/)
})
