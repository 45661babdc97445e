// `records import --keep-origin`: a legacy system's creation date and author kept, checked (D9),
// covered by `_hash` (D17) and named by the 'importar' audit entry (D18); ids and the default
// order stay the import's (D8, D11).
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { ON_POSTGRES, createTestDatabase, urlOf } from '../../helpers/postgres.js'
import { api, createCli } from './support.js'

/** A CLI on its own SQLite file, or its own PostgreSQL database in the PostgreSQL half. */
const newCli = async (t: Test) => createCli(t, ON_POSTGRES ? { DATABASE_URL: urlOf(await createTestDatabase()) } : {})

const YEAR = new Date().getFullYear()

t.test('D9, D18: --keep-origin keeps _created and _created_by, audited as kept', async (t) => {
  const cli = await newCli(t)
  const file = join(cli.dataDir, 'legacy.csv')
  writeFileSync(
    file,
    [
      'tip,nombre,apellidos,escala,_created,_created_by,_modified',
      'H-1,Marta,Ruiz,oficial,2011-06-01 09:30:00,jgarcia (SIGEPOL),2012-01-01 00:00:00',
      'H-2,Juan,Sanz,inspector,2004-02-29 17:05:10,legado:mlopez,',
    ].join('\n'),
  )
  const run = await cli.run(['import', 'personal', file, '--keep-origin', '--json'])
  t.equal(run.status, 0, run.stderr)
  t.match(JSON.parse(run.stdout), { imported: 2, rejected: [] })
  await cli.withService(async (service, token) => {
    const list = await api(service, token, 'GET', '/personal')
    const [first, second] = list.body.data.records as Record<string, string>[]
    t.match(first, { tip: 'H-1', _created: '2011-06-01 09:30:00', _created_by: 'legado:jgarcia (SIGEPOL)' })
    t.match(second, { tip: 'H-2', _created: '2004-02-29 17:05:10', _created_by: 'legado:mlopez' }, 'marked once')
    t.match(first?._id, new RegExp(`^PER-${YEAR}-00001$`), 'D8: the id carries the year of the import')
    t.match(first?._modified, new RegExp(`^${YEAR}-`), '_modified is the import, not the file')
    t.equal(first?._modified_by, second?._modified_by)
    t.match(first?._modified_by, /^cli:/)
    t.same(
      list.body.data.records.map((r: { tip: string }) => r.tip),
      ['H-1', 'H-2'],
      'D11: the default order is the import order',
    )
    const sorted = await api(service, token, 'GET', '/personal?sort=_created')
    t.same(
      sorted.body.data.records.map((r: { tip: string }) => r.tip),
      ['H-2', 'H-1'],
      'sort=_created orders by the kept date',
    )
    const legacy = await api(service, token, 'GET', '/personal?_created_by=legado:mlopez')
    t.equal(legacy.body.data.total, 1, 'the legacy author can be filtered')
    const audit = await api(service, token, 'GET', `/auditoria?registro=${first?._id}`)
    t.match(audit.body.data.entries, [
      {
        action: 'importar',
        user_id: /^cli:/,
        fields: ['tip', 'nombre', 'apellidos', 'escala', 'situacion', '_created', '_created_by'],
      },
    ])
    t.match(audit.body.data.entries[0].at, new RegExp(`^${YEAR}-`), 'the entry is dated when the import ran')
  })
  const verify = await cli.run(['audit', 'verify'])
  t.equal(verify.status, 0, `the kept metadata is covered by _hash and the chain: ${verify.stdout}${verify.stderr}`)
})

t.test('--keep-origin refuses rows whose origin is missing, unreal or in the future; nothing imported', async (t) => {
  const cli = await newCli(t)
  const file = join(cli.dataDir, 'bad.csv')
  writeFileSync(
    file,
    [
      'tip,nombre,apellidos,escala,_created,_created_by',
      'B-1,Ana,Gil,oficial,2011-02-30 10:00:00,autor',
      'B-2,Eva,Mas,oficial,2099-01-01 10:00:00,autor',
      'B-3,Sara,Paz,oficial,2011-01-01 10:00:00,',
      'B-4,Noa,Rey,oficial,11/01/2011,autor',
      'B-5,Rosa,Vidal,oficial,2011-01-01 10:00:00,autor',
    ].join('\n'),
  )
  const run = await cli.run(['import', 'personal', file, '--keep-origin'])
  t.equal(run.status, 1)
  t.match(run.stdout, /2 filas: _created debe ser una fecha y hora real AAAA-MM-DD HH:MM:SS \(líneas 2, 5\)/)
  t.match(run.stdout, /línea 3: _created no puede ser posterior a este momento/)
  t.match(run.stdout, /línea 4: Con --keep-origin cada fila debe traer _created y _created_by/)
  t.match(run.stdout, /4 de 5 filas rechazadas: no se ha importado nada/)

  // Without the option the columns are ignored, as the API ignores metadata (D7).
  const plain = await cli.run(['import', 'personal', file])
  t.equal(plain.status, 0, plain.stderr)
  await cli.withService(async (service, token) => {
    const list = await api(service, token, 'GET', '/personal')
    t.equal(list.body.data.total, 5)
    for (const record of list.body.data.records) {
      t.match(record._created, new RegExp(`^${YEAR}-`))
      t.match(record._created_by, /^cli:/)
    }
    const audit = await api(service, token, 'GET', '/auditoria?accion=importar&limit=1')
    t.notOk(audit.body.data.entries[0].fields.includes('_created'), 'a plain import keeps no origin')
  })
})
