// Export -> import round trips through the real binary:
// decrypted exports re-import with their values, masked ones and `_id` columns are refused
// clearly, repeated errors are grouped, `;` files are read, `| head` ends quietly, and text a
// spreadsheet would run as a formula is neutralised on the way out and restored on the way in.
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { api, BIN, createCli, DISCLOSURE, noStack } from './support.js'

const person = (tip: string, nif: string, nombre = 'Marta') =>
  JSON.stringify({ tip, nombre, apellidos: 'Ruiz', escala: 'oficial', nif })

t.test('a --decrypt export re-imports with its encrypted values; a file with _id needs --new-ids', async (t) => {
  const source = createCli(t)
  const loaded = await source.run(['import', 'personal', '-', '--format', 'jsonl'], {
    input: [person('T1', '11111111A'), person('T2', '22222222B')].join('\n'),
  })
  t.equal(loaded.status, 0, loaded.stderr)
  const exported = await source.run(['export', ...DISCLOSURE, 'personal', '--decrypt'])
  t.equal(exported.status, 0, exported.stderr)

  const target = createCli(t)
  const file = join(target.dataDir, 'personal.csv')
  writeFileSync(file, exported.stdout)
  const refused = await target.run(['import', 'personal', file])
  t.equal(refused.status, 1)
  t.match(
    refused.stderr,
    /^records: El fichero trae la columna _id \(una exportación\): import solo crea registros nuevos.*--new-ids/,
  )
  t.ok(noStack(refused))
  t.equal(
    target.raw((db) => (db.prepare('select count(*) n from personal').get() as { n: number }).n),
    0,
    'nothing imported',
  )

  const imported = await target.run(['import', 'personal', file, '--new-ids'])
  t.equal(imported.stdout, "2 registros importados en 'personal'\n", imported.stderr)
  await target.withService(async (service, token) => {
    t.match(await api(service, token, 'GET', '/personal?nif=22222222B'), {
      body: { data: { total: 1, records: [{ tip: 'T2', nif: '22222222B' }] } },
    })
  })
})

t.test('a masked export (*** in an encrypted field) is refused on import, naming the way out', async (t) => {
  const source = createCli(t)
  await source.run(['import', 'personal', '-', '--format', 'jsonl'], {
    input: [person('T1', '11111111A'), person('T2', '22222222B')].join('\n'),
  })
  const masked = await source.run(['export', ...DISCLOSURE, 'personal'])
  const target = createCli(t)
  const run = await target.run(['import', 'personal', '-', '--new-ids'], { input: masked.stdout })
  t.equal(run.status, 1)
  t.same(run.stdout.trim().split('\n'), [
    "2 filas: Valor enmascarado '***' en 'nif': el fichero es una exportación sin --decrypt y no contiene el valor; exporte con records export --decrypt (líneas 2, 3)",
    '2 de 2 filas rechazadas: no se ha importado nada (use --skip-invalid para importar las válidas)',
  ])
})

t.test('the same error in many rows is one line with the count and the first lines', async (t) => {
  const cli = createCli(t)
  const rows = Array.from(
    { length: 30 },
    (_, i) => `${String(i).padStart(7, '0')}-ABC,Seat,Ibiza,patrulla,${i},2020-01-01,operativo,x`,
  )
  const input = [
    'matricula,marca,modelo,tipo,km_actuales,fecha_matriculacion,estado,color_inventado',
    ...rows,
    'MAL,Seat,Ibiza,patrulla,-1,2020-01-01,operativo,',
  ].join('\n')
  const run = await cli.run(['import', 'vehiculos', '-'], { input })
  t.equal(run.status, 1)
  const lines = run.stdout.trim().split('\n')
  t.equal(lines.length, 3, run.stdout)
  t.match(lines[0], /^30 filas: .*color_inventado.* \(líneas 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, …\)$/)
  t.match(lines[1], /^línea 32: /)
  t.equal(lines[2], '31 de 31 filas rechazadas: no se ha importado nada (use --skip-invalid para importar las válidas)')
  const json = JSON.parse((await cli.run(['import', 'vehiculos', '-', '--json'], { input })).stdout)
  t.equal(json.rejected.length, 31, '--json still lists every row')
  t.match(json.groups, [
    { count: 30, lines: { length: 10 } },
    { count: 1, lines: [32] },
  ])
})

t.test('a CSV separated by semicolons (a Spanish spreadsheet) is read, decimal commas too', async (t) => {
  const cli = createCli(t)
  const input = [
    'tipo;infractor_nombre;fecha_infraccion;lugar_infraccion;importe;infraccion_descripcion',
    'trafico;Luis Sanz;2026-01-10 10:00:00;Calle Mayor, 1;200,50;"Estacionado; en doble fila"',
  ].join('\r\n')
  const run = await cli.run(['import', 'sanciones', '-'], { input })
  t.equal(run.stdout, "1 registros importados en 'sanciones'\n", run.stdout + run.stderr)
  await cli.withService(async (service, token) => {
    t.match(await api(service, token, 'GET', '/sanciones'), {
      body: {
        data: {
          records: [
            {
              lugar_infraccion: 'Calle Mayor, 1',
              importe: 200.5,
              infraccion_descripcion: 'Estacionado; en doble fila',
            },
          ],
        },
      },
    })
  })
})

t.test('records export | head ends quietly with status 0 (EPIPE)', async (t) => {
  const cli = createCli(t)
  const rows = Array.from(
    { length: 3000 },
    (_, i) => `${String(i).padStart(7, '0')}-ABC,Seat,Ibiza,patrulla,${i},2020-01-01,operativo`,
  )
  const file = join(cli.dataDir, 'vehiculos.csv')
  writeFileSync(file, ['matricula,marca,modelo,tipo,km_actuales,fecha_matriculacion,estado', ...rows].join('\n'))
  t.equal((await cli.run(['import', 'vehiculos', file])).status, 0)
  const run = spawnSync(
    'bash',
    [
      '-c',
      `set -o pipefail; "${process.execPath}" "${BIN}" export vehiculos --destinatario Juzgado --motivo Prueba | head -n 2`,
    ],
    {
      cwd: cli.dataDir,
      env: { ...process.env, RECORDS_ENCRYPTION_KEY: '', ...cli.env },
      encoding: 'utf8',
    },
  )
  t.equal(run.status, 0, run.stderr)
  t.equal(run.stderr, '', 'no stack trace, no message')
  t.equal(run.stdout.split('\n').length, 3)
})

t.test('export neutralises formula prefixes in text cells, and import restores them exactly', async (t) => {
  const source = createCli(t)
  const risky = [
    '=HYPERLINK("http://x.example","clic")',
    '+34 600',
    '-2+3',
    '@SUM(A1)',
    '\tcmd',
    "'=ya citado",
    'normal',
  ]
  const input = risky.map((nombre, i) => JSON.stringify({ tipo: 'radio', nombre, numero_serie: `SN-${i}` })).join('\n')
  t.equal((await source.run(['import', 'equipamiento', '-', '--format', 'jsonl'], { input })).status, 0)
  const csv = await source.run(['export', ...DISCLOSURE, 'equipamiento'])
  const cells = csv.stdout
    .split('\n')
    .slice(1, -1)
    .map((line) => line.split(',')[2])
  t.match(cells[0], /^"'=HYPERLINK/)
  t.same(cells.slice(1, 4), ["'+34 600", "'-2+3", "'@SUM(A1)"])
  t.match(cells[4], /^"?'\tcmd/)
  t.equal(cells[5], "''=ya citado", 'text already starting with a quote keeps it through the round trip')
  t.equal(cells[6], 'normal')

  const target = createCli(t)
  t.equal((await target.run(['import', 'equipamiento', '-', '--new-ids'], { input: csv.stdout })).status, 0)
  const names = target.raw((db) =>
    db
      .prepare('select nombre from equipamiento order by _row')
      .all()
      .map((r) => (r as { nombre: string }).nombre),
  )
  t.same(names, risky, 'the values are stored as they were exported')
})
