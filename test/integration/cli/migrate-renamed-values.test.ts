// `renamed_values`: an enum value renamed in modules.yaml is a migration
// step that rewrites the records holding the old value, with a new _hash and a 'migrar' audit
// entry each, like a renamed field, so filters find them and `records audit verify` holds.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import t, { type Test } from 'tap'
import { REPO_MODULES } from '../../helpers/api.js'
import { createTestDatabase, requirePostgres, urlOf } from '../../helpers/postgres.js'
import { api, createCli, type Cli } from './support.js'

const ESTADO = '        enum: [disponible, asignado, mantenimiento, baja]'
const today = readFileSync(REPO_MODULES, 'utf8')
// The workflow names the state too: the administrator renames it there as well.
const renamed = today
  .replace(
    ESTADO,
    '        enum: [disponible, asignado, reparacion, baja]\n        renamed_values: { mantenimiento: reparacion }',
  )
  .replace('to: mantenimiento }', 'to: reparacion }')
  .replace('{ from: mantenimiento, to: disponible }', '{ from: reparacion, to: disponible }')

type Query = (sql: string) => Promise<Record<string, unknown>[]>

async function scenario(t: Test, cli: Cli, query: Query): Promise<void> {
  t.not(today.indexOf(ESTADO), -1, "equipamiento.estado's enum is in modules.yaml")
  const file = join(cli.dataDir, 'modules-renamed.yaml')
  writeFileSync(file, renamed)
  t.equal((await cli.run(['validate', file])).status, 0)
  const input = [
    ['Radio 1', 'mantenimiento'],
    ['Radio 2', 'disponible'],
    ['Radio 3', 'mantenimiento'],
  ]
    .map(([nombre, estado]) => JSON.stringify({ tipo: 'radio', nombre, estado }))
    .join('\n')
  t.equal((await cli.run(['import', 'equipamiento', '-', '--format', 'jsonl'], { input })).status, 0)
  const ids = (await query("select _id from equipamiento where estado = 'mantenimiento' order by _row")).map(
    (r) => r['_id'],
  )
  const hashes = () => query('select _id, _hash from equipamiento order by _row')
  const before = await hashes()

  const dry = await cli.run(['migrate', '--dry-run'], { env: { MODULES_FILE: file } })
  t.equal(dry.status, 0, dry.stderr)
  t.match(
    dry.stdout,
    "Renombrar el valor 'mantenimiento' de 'equipamiento.estado' a 'reparacion' en los registros que lo tienen",
  )
  t.match(dry.stdout, `Registros afectados (2): ${ids.join(', ')}`)
  t.notMatch(dry.stdout, /Restringir/, 'a renamed value is not a removed one')
  t.same(await hashes(), before, 'the dry run changes nothing')

  const run = await cli.run(['migrate'], { env: { MODULES_FILE: file } })
  t.equal(run.status, 0, run.stderr)
  t.match(run.stdout, /Migración aplicada: \d+ pasos, 2 registros reescritos\./)
  const after = await hashes()
  t.not(after[0]?.['_hash'], before[0]?.['_hash'], 'a renamed record gets a new _hash')
  t.equal(after[1]?.['_hash'], before[1]?.['_hash'], 'a record without the old value is untouched')
  t.same(await query('select estado from equipamiento order by _row'), [
    { estado: 'reparacion' },
    { estado: 'disponible' },
    { estado: 'reparacion' },
  ])
  const audited = await query("select record_id, fields from _audit where action = 'migrar' order by seq")
  // PostgreSQL may hand back a JSON column parsed, SQLite as text.
  const fieldsOf = (value: unknown) => JSON.stringify(typeof value === 'string' ? JSON.parse(value) : value)
  t.same(
    audited.map((r) => ({ record_id: r['record_id'], fields: fieldsOf(r['fields']) })),
    ids.map((record_id) => ({ record_id, fields: '["estado"]' })),
  )
  t.equal(
    (await cli.run(['audit', 'verify'], { env: { MODULES_FILE: file } })).status,
    0,
    'hashes and audit chain verify',
  )
  await cli.withService(async (service, token) => {
    t.match(await api(service, token, 'GET', '/equipamiento?estado=reparacion'), { body: { data: { total: 2 } } })
  }, file)
  t.match(
    (await cli.run(['migrate', '--dry-run'], { env: { MODULES_FILE: file } })).stdout,
    /no hay cambios/,
    'applied once',
  )
}

t.test('renamed_values renames an enum value in existing records, rehashed and audited', async (t) => {
  const cli = createCli(t)
  await scenario(t, cli, async (sql) => cli.raw((db) => db.prepare(sql).all() as Record<string, unknown>[]))
})

const reachable = await requirePostgres(t, 'renamed_values was not tested on PostgreSQL')

t.test('renamed_values on PostgreSQL', { skip: reachable ? false : 'PostgreSQL is not reachable' }, async (t) => {
  const url = urlOf(await createTestDatabase())
  const cli = createCli(t, { DATABASE_URL: url })
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  t.teardown(() => client.end())
  await scenario(t, cli, async (sql) => (await client.query(sql)).rows as Record<string, unknown>[])
})
