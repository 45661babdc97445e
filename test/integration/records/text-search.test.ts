// `?q=`: words of the searchable fields, case- and accent-insensitive, each word a
// prefix, every word in some field the caller may read, under the caller's scope, counted by
// data.total, in relevance order unless `sort` is given. Same answers on SQLite and PostgreSQL.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CompiledQuery, sql } from 'kysely'
import t from 'tap'
import { seedDenuncias } from '../../../scripts/bench/seed.js'
import { recordQuery } from '../../../src/db/records/query.js'
import { withTextSearch } from '../../../src/db/records/text-search-sql.js'
import { ON_POSTGRES, REPO_MODULES, startTestApi, VALID, type TestApi } from '../../helpers/api.js'

const ids = (reply: { body: any }): string[] => reply.body.data.records.map((r: { _id: string }) => r._id)

async function denuncia(api: TestApi, values: Record<string, unknown>, token?: string): Promise<string> {
  return (await api.create('denuncias', { ...VALID['denuncias']!(), ...values }, token))._id as string
}

t.test('q finds words whatever their case and accents, as prefixes, across fields', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const danos = await denuncia(api, { descripcion: 'DANOS en el escaparate', lugar_hechos: 'Calle Mayor 4' })
  const robo = await denuncia(api, { descripcion: 'Robo con daños a terceros', lugar_hechos: 'Avenida del Puerto' })
  const other = await denuncia(api, { descripcion: 'Extravío de documentación', lugar_hechos: 'Plaza de España' })
  const search = (q: string, extra = '') =>
    api.request('GET', `/denuncias?q=${encodeURIComponent(q)}${extra}`, { token })

  for (const q of ['daños', 'DANOS', 'Daños', 'dano'])
    t.same(ids(await search(q)).sort(), [danos, robo].sort(), `'${q}' finds both records holding daños/DANOS`)
  t.same(ids(await search('daños mayor')), [danos], 'every word must be found, in any searchable field')
  t.same(ids(await search('espana extravio')), [other], 'accents in the stored text do not count either')
  t.same(ids(await search('inexistente')), [], 'a word found nowhere: no record')
  const counted = await search('daños', '&limit=1')
  t.equal(counted.body.data.total, 2, 'data.total counts every match, not the page')
  t.same(
    ids(await search('daños', '&sort=lugar_hechos')),
    [robo, danos],
    'with sort, the order asked for instead of relevance (Avenida before Calle)',
  )
  t.same(ids(await search('daños', '&tipo=hurto')).sort(), [danos, robo].sort(), 'q combines with filters')

  await api.request('PUT', `/denuncias/${robo}`, { token, body: { descripcion: 'Robo sin más' } })
  t.same(ids(await search('daños')), [danos], 'an update leaves the index current')
  await api.request('DELETE', `/denuncias/${danos}`, { token })
  t.same(ids(await search('daños')), [], 'a deleted record is not found')
})

t.test('relevance: the record where the words weigh most comes first', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const weak = await denuncia(api, {
    descripcion: 'Pelea en la vía pública con varios implicados y un herido leve, testigos en el lugar',
    lugar_hechos: 'Calle Ancha',
  })
  const strong = await denuncia(api, { descripcion: 'Pelea', lugar_hechos: 'Pelea frente al bar' })
  const found = await api.request('GET', '/denuncias?q=pelea', { token })
  t.same(ids(found), [strong, weak], 'the shorter text that repeats the word first')
})

t.test('need to know: hidden fields are not searched, scopes apply', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const secret = await denuncia(api, { observaciones: 'confidente anónimo', descripcion: 'Hurto' })
  t.same(ids(await api.request('GET', '/denuncias?q=confidente', { token })), [secret], 'the superadmin finds it')
  const consulta = await api.userWithRole('consulta')
  const asConsulta = await api.request('GET', '/denuncias?q=confidente', { token: consulta.token })
  t.equal(asConsulta.status, 200)
  t.same(ids(asConsulta), [], 'consulta cannot read observaciones, so a word there finds nothing')

  const agente = await api.userWithRole('agente', { personal_id: 'PER-2026-00077' })
  const mine = await denuncia(api, { descripcion: 'Vandalismo en parque', agente_asignado: 'PER-2026-00077' })
  await denuncia(api, { descripcion: 'Vandalismo en colegio', agente_asignado: 'PER-2026-00099' })
  const scoped = await api.request('GET', '/denuncias?q=vandalismo', { token: agente.token })
  t.same(ids(scoped), [mine], 'an agente finds only the records of their scope')
  t.equal(scoped.body.data.total, 1, 'and counts only those')
})

t.test('bad q: a clear 400 naming the parameter', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const cases: [string, string, RegExp][] = [
    ['/vehiculos?q=furgoneta', 'a module without searchable fields', /no tiene campos de búsqueda/],
    ['/denuncias?q=%20%2C%2C', 'no word at all', /al menos una palabra/],
    [`/denuncias?q=${'a'.repeat(201)}`, 'too long', /como máximo 200 caracteres/],
    [`/denuncias?q=${Array.from({ length: 11 }, (_, i) => `p${i}`).join('+')}`, 'too many words', /10 palabras/],
    ['/denuncias?q=uno&q=dos', 'given twice', /más de una vez/],
  ]
  for (const [path, why, message] of cases) {
    const reply = await api.request('GET', path, { token })
    t.equal(reply.status, 400, why)
    t.equal(reply.body.success, false)
    t.match(reply.body.error, message, why)
    t.match(reply.body.details, [{ field: 'q' }], `${why}: details name q`)
  }
  const quotes = await api.request('GET', `/denuncias?q=${encodeURIComponent('"* OR {x}: NEAR(')}`, { token })
  t.equal(quotes.status, 200, "the search engines' own syntax is plain text here")
})

t.test('a field made searchable later finds the records written before', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'records-text-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const modulesFile = join(dir, 'modules.yaml')
  const dataDir = join(dir, 'data')
  const shipped = readFileSync(REPO_MODULES, 'utf8')
  const before = shipped.replace('      resultado: { type: text, searchable: true }', '      resultado: { type: text }')
  t.not(before, shipped, 'the fixture changes sala092.resultado')
  writeFileSync(modulesFile, before)
  const body = { ...VALID['sala092']!(), descripcion: 'Aviso', resultado: 'Patrulla desplazada, sin novedad' }
  t.test('before', async (t) => {
    const api = await startTestApi(t, { env: { MODULES_FILE: modulesFile }, dataDir })
    await api.create('sala092', body)
    const token = await api.adminToken()
    t.same(ids(await api.request('GET', '/sala092?q=novedad', { token })), [], 'resultado is not searchable yet')
  })
  t.test('after', async (t) => {
    writeFileSync(modulesFile, shipped)
    const api = await startTestApi(t, { env: { MODULES_FILE: modulesFile }, dataDir })
    t.ok(
      api.service.migrated.some((step: string) => step.includes('búsqueda de texto')),
      'the start rebuilt the text index',
    )
    const token = await api.adminToken()
    t.equal(ids(await api.request('GET', '/sala092?q=novedad', { token })).length, 1, 'the old record is found')
  })
})

t.test(`the search uses its index on ${ON_POSTGRES ? 'PostgreSQL (GIN)' : 'SQLite (FTS5)'}`, async (t) => {
  const api = await startTestApi(t)
  const { db, dialect } = api.service.database
  const spec = api.service.spec.moduleByName.get('denuncias')
  if (spec === undefined) throw new Error('no denuncias module')
  // Enough rows that the planner weighs the index against the other ways in, one of them holding the word.
  await seedDenuncias(api.service, spec, 3000, 'test-seed')
  await denuncia(api, { descripcion: 'Daños' })
  // The query the list runs, built by the same code: a scope or column change that stops it using the index fails here.
  const search = withTextSearch(
    recordQuery(db, spec, { user: null, dialect }),
    dialect,
    'denuncias',
    ['descripcion'],
    ['danos'],
  )
  const compiled = search.query.selectAll('denuncias').compile()
  const plan = ON_POSTGRES
    ? await db.transaction().execute(async (trx) => {
        await sql`analyze denuncias`.execute(trx)
        const rows = (await trx.executeQuery(CompiledQuery.raw(`explain ${compiled.sql}`, [...compiled.parameters])))
          .rows
        return rows.map((r) => String((r as Record<string, unknown>)['QUERY PLAN'])).join('\n')
      })
    : (await db.executeQuery(CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]))).rows
        .map((r) => String((r as { detail: string }).detail))
        .join('\n')
  t.match(plan, ON_POSTGRES ? /Bitmap Index Scan on ix_denuncias__q_descripcion/ : /VIRTUAL TABLE INDEX/, plan)
  t.notMatch(plan, ON_POSTGRES ? /Seq Scan on denuncias/ : /SCAN denuncias\b/, 'no scan of the records table')
})
