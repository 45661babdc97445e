// What `records migrate --allow-data-loss` archives, on SQLite and on PostgreSQL (under
// RECORDS_TEST_DATABASE=postgres). A module removed and later added again under the same name:
// the archive keeps the old records out of the API, the new module starts empty, and neither the
// start nor `records migrate` trips over the archive's indexes, whose names were the module's.
// Two removed fields whose long names begin alike: each is archived in a column of its own.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { REPO_MODULES } from '../../helpers/api.js'
import { ON_POSTGRES, createTestDatabase, urlOf } from '../../helpers/postgres.js'
import { api, createCli } from './support.js'

const NOTAS = `  notas:
    prefix: NOT
    fields:
      codigo: { type: string, unique: true }
      texto: { type: text, searchable: true }
`

t.test('a module removed and added again starts empty, its old records archived', async (t) => {
  const cli = createCli(t, ON_POSTGRES ? { DATABASE_URL: urlOf(await createTestDatabase()) } : {})
  const withNotas = join(cli.dataDir, 'con-notas.yaml')
  writeFileSync(withNotas, readFileSync(REPO_MODULES, 'utf8').replace(/^modules:\n/m, `modules:\n${NOTAS}`))

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

t.test('two removed fields with long names alike are archived in two columns', async (t) => {
  const cli = createCli(t, ON_POSTGRES ? { DATABASE_URL: urlOf(await createTestDatabase()) } : {})
  const long = 'observaciones_del_instructor_de_la_causa_'
  const declared = `${NOTAS}      ${long}penal: { type: text }\n      ${long}civil: { type: text }\n`
  const withFields = join(cli.dataDir, 'con-campos.yaml')
  writeFileSync(withFields, readFileSync(REPO_MODULES, 'utf8').replace(/^modules:\n/m, `modules:\n${declared}`))
  const without = join(cli.dataDir, 'sin-campos.yaml')
  writeFileSync(without, readFileSync(REPO_MODULES, 'utf8').replace(/^modules:\n/m, `modules:\n${NOTAS}`))

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
