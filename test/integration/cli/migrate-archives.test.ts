// What `records migrate --allow-data-loss` archives, on SQLite and on PostgreSQL (under
// RECORDS_TEST_DATABASE=postgres). A module removed and later added again under the same name:
// the archive keeps the old records out of the API, the new module starts empty, and neither the
// start nor `records migrate` trips over the archive's indexes, whose names were the module's.
// A database archived by an earlier version, whose archive kept the module's indexes, takes the
// module back too. Two removed fields whose long names begin alike: each is archived in a column
// of its own.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import pg from 'pg'
import t, { type Test } from 'tap'
import { REPO_MODULES } from '../../helpers/api.js'
import { ON_POSTGRES, createTestDatabase, urlOf } from '../../helpers/postgres.js'
import { api, createCli, type Cli } from './support.js'

const NOTAS = `  notas:
    prefix: NOT
    fields:
      codigo: { type: string, unique: true }
      texto: { type: text, searchable: true }
`

/** A `records` command line on a new database: SQLite, or PostgreSQL in the PostgreSQL pass. */
const newCli = async (t: Test) => createCli(t, ON_POSTGRES ? { DATABASE_URL: urlOf(await createTestDatabase()) } : {})

/** The shipped modules.yaml with `declared` modules first, written to `name` in the CLI's directory. */
function modulesFile(cli: Cli, name: string, declared: string): string {
  const file = join(cli.dataDir, name)
  writeFileSync(file, readFileSync(REPO_MODULES, 'utf8').replace(/^modules:\n/m, `modules:\n${declared}`))
  return file
}

t.test('a module removed and added again starts empty, its old records archived', async (t) => {
  const cli = await newCli(t)
  const withNotas = modulesFile(cli, 'con-notas.yaml', NOTAS)

  t.equal((await cli.run(['migrate'], { env: { MODULES_FILE: withNotas } })).status, 0, 'created with notas')
  await cli.withService(async (service, token) => {
    t.equal((await api(service, token, 'POST', '/notas', { codigo: 'A-1', texto: 'primera' })).status, 201)
  }, withNotas)

  const removed = await cli.run(['migrate', '--allow-data-loss'])
  t.equal(removed.status, 0, 'notas removed: its table archived')
  t.match(removed.stdout, /Eliminar el índice 'ux_notas__id'[\s\S]*Quitar el módulo 'notas'/, 'its indexes go first')

  const readded = await cli.run(['migrate'], { env: { MODULES_FILE: withNotas } })
  t.equal(readded.status, 0, `notas added again: ${readded.stderr}`)
  await cli.withService(async (service, token) => {
    const list = await api(service, token, 'GET', '/notas')
    t.equal(list.body.data.total, 0, 'the new module starts empty: the old record stays in the archive')
    t.equal((await api(service, token, 'POST', '/notas', { codigo: 'A-1', texto: 'otra' })).status, 201)
    const dup = await api(service, token, 'POST', '/notas', { codigo: 'A-1' })
    t.equal(dup.status, 409, 'the new unique index holds')
    t.equal((await api(service, token, 'GET', '/notas?q=otra')).body.data.total, 1, 'its text search works')
  }, withNotas)
})

/** SQL on the test's database, outside the service: SQLite's file or PostgreSQL's URL. */
async function onDatabase(
  cli: { dataDir: string; env: Record<string, string> },
  statement: string,
): Promise<unknown[]> {
  const url = cli.env['DATABASE_URL']
  if (url === undefined) {
    const db = new BetterSqlite3(join(cli.dataDir, 'records.db'))
    try {
      return db.prepare(statement).reader ? db.prepare(statement).all() : (db.prepare(statement).run(), [])
    } finally {
      db.close()
    }
  }
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(statement)).rows
  } finally {
    await client.end()
  }
}

t.test("an archive that kept the module's indexes (an earlier version) does not stop it coming back", async (t) => {
  // A long name: its unique index's name passes 63 bytes (PostgreSQL keeps the first 63, SQLite all).
  const module = 'expedientes_de_la_unidad_de_policia_judicial'
  const field = 'numero_de_registro_de_la_instruccion'
  const cli = await newCli(t)
  const declared = modulesFile(
    cli,
    'con-expedientes.yaml',
    `  ${module}:\n    prefix: EXP\n    fields:\n      ${field}: { type: string, unique: true }\n`,
  )
  t.equal((await cli.run(['migrate'], { env: { MODULES_FILE: declared } })).status, 0)
  await cli.withService(async (service, token) => {
    t.equal((await api(service, token, 'POST', `/${module}`, { [field]: 'PJ-1' })).status, 201)
  }, declared)
  t.equal((await cli.run(['migrate', '--allow-data-loss'])).status, 0, 'the module archived')
  // What an earlier version left: the archive with the module's own index names on it.
  const archive = (
    ON_POSTGRES
      ? await onDatabase(cli, "select tablename as name from pg_tables where tablename like '\\_archived\\_%'")
      : await onDatabase(
          cli,
          "select name from sqlite_master where type = 'table' and name like '\\_archived\\_%' escape '\\'",
        )
  ) as { name: string }[]
  t.equal(archive.length, 1, 'one archived table')
  const archived = `"${archive[0]?.name}"`
  t.ok(Buffer.byteLength(`ux_${module}_${field}`) > 63, 'a unique index name longer than 63 bytes')
  await onDatabase(cli, `create unique index ux_${module}__id on ${archived} (_id) where _deleted is null`)
  await onDatabase(cli, `create unique index ux_${module}_${field} on ${archived} (${field}) where _deleted is null`)

  const readded = await cli.run(['migrate'], { env: { MODULES_FILE: declared } })
  t.equal(readded.status, 0, `the module added again: ${readded.stderr}`)
  await cli.withService(async (service, token) => {
    t.equal((await api(service, token, 'GET', `/${module}`)).body.data.total, 0, 'the new module starts empty')
    t.equal((await api(service, token, 'POST', `/${module}`, { [field]: 'PJ-1' })).status, 201)
    t.equal(
      (await api(service, token, 'POST', `/${module}`, { [field]: 'PJ-1' })).status,
      409,
      'its unique index holds',
    )
  }, declared)
  const rows = (
    ON_POSTGRES
      ? await onDatabase(cli, `select count(*)::int as n from ${archived}`)
      : await onDatabase(cli, `select count(*) as n from ${archived}`)
  ) as { n: number }[]
  t.equal(rows[0]?.n, 1, 'the archive keeps its record')
})

t.test('two removed fields with long names alike are archived in two columns', async (t) => {
  const cli = await newCli(t)
  const long = 'observaciones_del_instructor_de_la_causa_'
  const declared = `${NOTAS}      ${long}penal: { type: text }\n      ${long}civil: { type: text }\n`
  const withFields = modulesFile(cli, 'con-campos.yaml', declared)
  const without = modulesFile(cli, 'sin-campos.yaml', NOTAS)

  t.equal((await cli.run(['migrate'], { env: { MODULES_FILE: withFields } })).status, 0)
  await cli.withService(async (service, token) => {
    const body = { codigo: 'B-1', [`${long}penal`]: 'penal', [`${long}civil`]: 'civil' }
    t.equal((await api(service, token, 'POST', '/notas', body)).status, 201)
  }, withFields)
  const removed = await cli.run(['migrate', '--allow-data-loss'], { env: { MODULES_FILE: without } })
  t.equal(removed.status, 0, `both fields archived: ${removed.stderr}`)
  await cli.withService(async (service, token) => {
    const record = (await api(service, token, 'GET', '/notas')).body.data.records[0]
    t.same(
      Object.keys(record).filter((k) => k.startsWith('observaciones')),
      [],
      'out of the API',
    )
    t.equal(record.codigo, 'B-1', 'the record is still served')
  }, without)
})
