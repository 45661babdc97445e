// `records import|export`: bulk load through the API's validation, encryption, hashes and
// audit, all or nothing; every bad row reported with its line (D14, D16-D18).
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { api, createCli, DISCLOSURE } from './support.js'

const HEADER = 'tip,nombre,apellidos,escala,nif,destino,idiomas,_id'

t.test('a file with bad rows reports every bad row and imports nothing', async (t) => {
  const cli = createCli(t)
  const file = join(cli.dataDir, 'personal.csv')
  writeFileSync(
    file,
    [
      HEADER,
      'TIP-1,Marta,Ruiz,oficial,11111111A,Centro,"[""es"",""en""]",IGNORED',
      'TIP-2,Juan,,oficial,,,,',
      'TIP-3,Luis,Sanz,general,,,,',
      'TIP-1,Ana,Gil,oficial,,,,',
      'TIP-5,Eva,Mas,oficial,11111111A,,,',
      'TIP-6,Sara,Paz,oficial',
      '"TIP-7","Rosa","Vidal\nMora",inspector,,,,',
      'TIP-8,Noa,Rey,oficial,,,no-es-json,',
    ].join('\n'),
  )
  const run = await cli.run(['import', 'personal', file, '--new-ids'])
  t.equal(run.status, 1)
  t.same(run.stdout.trim().split('\n'), [
    "línea 3: Datos requeridos: El campo 'apellidos' es obligatorio",
    "línea 4: Datos inválidos: El campo 'escala' debe ser uno de: oficial, subinspector, inspector, comisario",
    "línea 5: Ya existe un registro con el mismo valor en 'tip' (repetido de la línea 2)",
    "línea 6: Ya existe un registro con el mismo valor en 'nif' (repetido de la línea 2)",
    'línea 7: La fila tiene 4 columnas y la cabecera 8',
    "línea 10: Datos inválidos: El campo 'idiomas' debe ser de tipo lista",
    '6 de 8 filas rechazadas: no se ha importado nada (use --skip-invalid para importar las válidas)',
  ])
  t.equal(
    cli.raw((db) => (db.prepare('select count(*) n from personal').get() as { n: number }).n),
    0,
    'nothing imported',
  )

  const skip = await cli.run(['import', 'personal', file, '--skip-invalid', '--json', '--new-ids'])
  t.equal(skip.status, 0)
  t.match(JSON.parse(skip.stdout), { module: 'personal', total: 8, imported: 2, rejected: { length: 6 } })
  const stored = cli.raw((db) =>
    db.prepare('select _id, nif, _bidx_nif, idiomas, apellidos from personal order by _row').all(),
  ) as Record<string, string>[]
  t.equal(stored.length, 2)
  t.match(
    stored[0],
    // D41: under the record's own data key (personal declares retention:).
    { _id: /^PER-\d{4}-00001$/, nif: /^r1\.[0-9a-f]{16}\./, _bidx_nif: /\S/, idiomas: '["es","en"]' },
    'encrypted at rest, with its blind index; _id from the file ignored',
  )
  t.equal(stored[1]?.apellidos, 'Vidal\nMora', 'a quoted value over two lines')

  await cli.withService(async (service, token) => {
    t.match(await api(service, token, 'GET', '/personal?nif=11111111A'), {
      body: { data: { total: 1, records: [{ nif: '11111111A', idiomas: ['es', 'en'], _created_by: /^cli:/ }] } },
    })
  })
  const again = await cli.run(['import', 'personal', file, '--skip-invalid', '--json', '--new-ids'])
  t.match(
    JSON.parse(again.stdout).rejected.find((r: { line: number }) => r.line === 2),
    { reason: /^Ya existe un registro con el mismo valor en 'tip' \(PER-\d{4}-00001\)$/ },
    'values already stored count too',
  )
  t.equal((await cli.run(['audit', 'verify'])).status, 0, 'hashes and audit entries of imported records verify')
})

t.test('JSON Lines from standard input, and a round trip through export', async (t) => {
  const cli = createCli(t)
  const lines = [
    JSON.stringify({ tipo: 'radio', nombre: 'Emisora 1', numero_serie: 'SN-1' }),
    '',
    JSON.stringify({ tipo: 'arma', nombre: 'Pistola', estado: 'asignado', ubicacion: 'Armería' }),
  ].join('\n')
  const run = await cli.run(['import', 'equipamiento', '-', '--format', 'jsonl'], { input: lines })
  t.equal(run.status, 0, run.stderr)
  t.equal(run.stdout, "2 registros importados en 'equipamiento'\n")
  t.equal(run.stderr, '', 'no progress bar when stderr is not a terminal')
  const bad = await cli.run(['import', 'equipamiento', '-', '--format', 'jsonl'], {
    input: '{"tipo":\n{"tipo":"radio"}',
  })
  t.same(bad.stdout.trim().split('\n').slice(0, 2), [
    'línea 1: JSON inválido',
    "línea 2: Datos requeridos: El campo 'nombre' es obligatorio",
  ])

  const csv = await cli.run(['export', ...DISCLOSURE, 'equipamiento'])
  t.equal(csv.status, 0)
  const [header, first] = csv.stdout.split('\n')
  t.match(header, /^_id,tipo,nombre,numero_serie,.*,_created,_created_by,_modified,_modified_by,_version,_hash$/)
  t.match(first, /^EQU-\d{4}-00001,radio,Emisora 1,SN-1,/)
  const out = join(cli.dataDir, 'equipamiento.jsonl')
  const jsonl = await cli.run(['export', ...DISCLOSURE, 'equipamiento', '--out', out])
  t.match(jsonl.stderr, /2 registros exportados de 'equipamiento'/)
  const records = readFileSync(out, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
  t.match(records, [
    { nombre: 'Emisora 1', _version: 1 },
    { nombre: 'Pistola', estado: 'asignado' },
  ])

  const other = createCli(t)
  const file = join(other.dataDir, 'equipamiento.csv')
  writeFileSync(file, csv.stdout)
  const reimport = await other.run(['import', 'equipamiento', file, '--new-ids'])
  t.equal(reimport.stdout, "2 registros importados en 'equipamiento'\n", 'an export imports into another database')
})

t.test('export masks encrypted values unless --decrypt; each export is one comunicar entry', async (t) => {
  const cli = createCli(t)
  await cli.run(['import', 'personal', '-', '--format', 'jsonl'], {
    input: JSON.stringify({ tip: 'T1', nombre: 'A', apellidos: 'B', escala: 'oficial', nif: '22222222B' }),
  })
  const masked = await cli.run(['export', ...DISCLOSURE, 'personal', '--format', 'jsonl'])
  t.match(JSON.parse(masked.stdout), { nif: '***' })
  const entries = () =>
    cli.raw((db) =>
      db
        .prepare(
          "select user_id, action, fields, recipient, motivo, record_ids, criteria from _audit where action in ('consultar', 'comunicar') order by seq",
        )
        .all(),
    ) as Record<string, string>[]
  const plain = await cli.run(['export', ...DISCLOSURE, 'personal', '--format', 'jsonl', '--decrypt'])
  const exported = JSON.parse(plain.stdout)
  t.match(exported, { nif: '22222222B' })
  const rows = entries()
  t.equal(rows.length, 2, 'one entry per export, no consultar entry per page or record')
  t.match(rows, [
    {
      user_id: /^cli:/,
      action: 'comunicar',
      recipient: 'Juzgado de Instrucción n.º 2',
      motivo: 'Diligencias previas 123/2026',
    },
    { user_id: /^cli:/, action: 'comunicar', recipient: 'Juzgado de Instrucción n.º 2' },
  ])
  t.same(JSON.parse(rows[1]!['record_ids']!), [exported._id], 'the ids disclosed')
  t.match(JSON.parse(rows[1]!['criteria']!), { descifrado: true, registros: 1 })
  t.ok(JSON.parse(rows[1]!['fields']!).includes('nif'))
  t.notOk(JSON.stringify(rows).includes('22222222B'), 'no value in the entry')

  for (const [args, missing] of [
    [['--motivo', 'x'], '--destinatario'],
    [['--destinatario', 'Juzgado'], '--motivo'],
  ] as const) {
    const refused = await cli.run(['export', 'personal', ...args])
    t.equal(refused.status, 2, `refused without ${missing}`)
    t.match(refused.stderr, new RegExp(`comunicación de datos.*indique ${missing}`))
    t.equal(refused.stdout, '', 'nothing exported')
  }
  t.equal(entries().length, 2, 'a refused export leaves no entry')
  t.equal(
    (await cli.run(['export', ...DISCLOSURE, 'nada'])).stderr.startsWith(
      "records: Módulo desconocido 'nada'. Módulos: denuncias,",
    ),
    true,
  )
})

// 100,000 rows: RECORDS_IMPORT_ROWS=100000 npx tap --disable-coverage test/integration/cli/import-export.test.ts
t.test('a large CSV imports in one transaction (size from RECORDS_IMPORT_ROWS)', async (t) => {
  const count = Number(process.env['RECORDS_IMPORT_ROWS'] ?? 2000)
  const cli = createCli(t)
  const file = join(cli.dataDir, 'vehiculos.csv')
  const rows = Array.from(
    { length: count },
    (_, i) => `${String(i).padStart(7, '0')}-ABC,Seat,Ibiza,patrulla,${i},2020-01-01,operativo`,
  )
  writeFileSync(file, ['matricula,marca,modelo,tipo,km_actuales,fecha_matriculacion,estado', ...rows].join('\n'))
  const started = process.hrtime.bigint()
  const run = await cli.run(['import', 'vehiculos', file, '--json'])
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  t.equal(run.status, 0, run.stderr)
  t.match(JSON.parse(run.stdout), { total: count, imported: count, rejected: [] })
  t.equal(
    cli.raw((db) => (db.prepare('select count(*) n from vehiculos').get() as { n: number }).n),
    count,
  )
  t.comment(`imported ${count} CSV rows in ${seconds.toFixed(1)} s`)
})
