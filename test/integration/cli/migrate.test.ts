// `records migrate`: a database made with today's modules.yaml, then a modules.yaml that adds a
// module, adds a field, renames one (renamed_from) and indexes it with another (indexes:),
// and encrypts a plain one. The dry run shows the plan in words and SQL and changes nothing;
// migrate applies it; an unsafe change is refused with the affected records and nothing lost (D14, D16, D17,
// D18).
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { openService } from '../../../src/app/service.js'
import { loadSettings } from '../../../src/app/settings.js'
import { evolved } from './evolved-modules.js'
import { api, createCli, noStack } from './support.js'

t.test('adding a module and a field, renaming and encrypting a field', async (t) => {
  t.not(evolved.indexOf('renamed_from: asignado_a'), -1, 'the rename is in the evolved file')
  t.not(evolved.indexOf('destino: { type: string, encrypted: true }'), -1, 'the encryption is in the evolved file')
  const cli = createCli(t)
  const evolvedFile = join(cli.dataDir, 'modules-evolved.yaml')
  writeFileSync(evolvedFile, evolved)

  t.equal((await cli.run(['migrate'])).status, 0, "the database is created with today's modules.yaml")
  const ids = await cli.withService(async (service, token) => {
    const person = await api(service, token, 'POST', '/personal', {
      tip: 'TIP-1',
      nombre: 'Marta',
      apellidos: 'Ruiz',
      escala: 'oficial',
      destino: 'Comisaría Centro',
    })
    const empty = await api(service, token, 'POST', '/personal', {
      tip: 'TIP-2',
      nombre: 'Juan',
      apellidos: 'Gil',
      escala: 'oficial',
    })
    const car = await api(service, token, 'POST', '/vehiculos', {
      matricula: '1234-ABC',
      tipo: 'patrulla',
      asignado_a: 'PER-2026-00001',
      marca: 'Seat',
    })
    const spare = await api(service, token, 'POST', '/vehiculos', { matricula: '9999-ZZZ', tipo: 'moto' })
    return {
      person: person.body.data._id as string,
      empty: empty.body.data._id as string,
      car: car.body.data._id as string,
      spare: spare.body.data._id as string,
    }
  })
  const before = cli.raw((db) => ({
    snapshot: db.prepare('select snapshot from _schema_state').get(),
    personal: db.prepare('select * from personal order by _row').all(),
    vehiculos: db.prepare('select * from vehiculos order by _row').all(),
    audit: db.prepare('select count(*) n from _audit').get(),
  }))

  await t.rejects(
    openService(loadSettings({ ...cli.env, MODULES_FILE: evolvedFile })),
    /records migrate/,
    'the server refuses to encrypt at startup, pointing at records migrate',
  )

  t.test('--dry-run prints the plan in words and SQL, and changes nothing', async (t) => {
    const run = await cli.run(['migrate', '--dry-run'], { env: { MODULES_FILE: evolvedFile } })
    t.equal(run.status, 0)
    t.match(run.stdout, /^Plan de migración \(\d+ pasos\):/)
    for (const line of [
      "Cifrar el campo 'personal.destino' y sus valores existentes",
      "Añadir la columna '_bidx_destino' a 'personal'",
      "Renombrar 'vehiculos.asignado_a' a 'conductor_habitual' conservando los datos",
      "Añadir la columna 'color' a 'vehiculos'",
      "Crear el módulo 'objetos_perdidos'",
      'alter table "vehiculos" rename column "asignado_a" to "conductor_habitual";',
      'alter table "vehiculos" add column "color" text;',
      'alter table "personal" add column "_bidx_destino" text;',
      'create table "objetos_perdidos" (',
      "Crear el índice 'cx_vehiculos__conductor_habitual__estado'",
      'create index "cx_vehiculos__conductor_habitual__estado" on "vehiculos" ("conductor_habitual", "estado") where "_deleted" is null;',
    ])
      t.ok(run.stdout.includes(line), line)
    const json = await cli.run(['migrate', '--dry-run', '--json'], { env: { MODULES_FILE: evolvedFile } })
    const plan = JSON.parse(json.stdout)
    t.equal(plan.blocked, false)
    t.same(
      plan.steps
        .map((s: { kind: string }) => s.kind)
        .filter((k: string) => k !== 'create_index')
        .sort(),
      // drop_index: the renamed ref field's own index (a ref is always indexed) follows its new name.
      ['add_column', 'add_column', 'create_table', 'drop_index', 'encrypt_field', 'rename_column'],
    )
    t.same(
      cli.raw((db) => ({
        snapshot: db.prepare('select snapshot from _schema_state').get(),
        personal: db.prepare('select * from personal order by _row').all(),
        vehiculos: db.prepare('select * from vehiculos order by _row').all(),
        audit: db.prepare('select count(*) n from _audit').get(),
      })),
      before,
      'schema snapshot, rows and audit unchanged',
    )
  })

  t.test('migrate applies it: ciphertext on disk, plain through the API, data kept', async (t) => {
    const run = await cli.run(['migrate'], { env: { MODULES_FILE: evolvedFile } })
    t.equal(run.status, 0, run.stderr)
    t.match(run.stdout, /Migración aplicada: \d+ pasos, 2 registros reescritos\./)
    const stored = cli.raw((db) => ({
      person: db.prepare('select destino, _bidx_destino from personal where _id = ?').get(ids.person) as {
        destino: string
        _bidx_destino: string
      },
      empty: db.prepare('select destino, _bidx_destino from personal where _id = ?').get(ids.empty),
      car: db.prepare('select conductor_habitual, color from vehiculos where _id = ?').get(ids.car),
      migrated: db.prepare("select record_id, fields from _audit where action = 'migrar' order by seq").all(),
    }))
    // personal has `retention:`: its values go under the record's own data key (D41).
    t.match(stored.person.destino, /^r1\.[0-9a-f]{16}\./, 'the existing value is encrypted at rest')
    const versions = cli.raw((db) =>
      (
        db.prepare('select record_id, data from _versions where record_id in (?, ?)').all(ids.person, ids.car) as {
          record_id: string
          data: string
        }[]
      ).map((v) => ({ id: v.record_id, data: JSON.parse(v.data) as Record<string, unknown> })),
    )
    const personVersion = versions.find((v) => v.id === ids.person)!.data
    t.equal(
      String(personVersion['destino']).split('.')[1],
      stored.person.destino.split('.')[1],
      'its kept version is encrypted too, under the same data key',
    )
    t.notOk(JSON.stringify(versions).includes('Comisaría'), 'no version keeps the clear value')
    t.same(
      Object.keys(versions.find((v) => v.id === ids.car)!.data).filter(
        (k) => k.includes('asignado') || k.includes('conductor'),
      ),
      ['conductor_habitual'],
      'a renamed field is renamed in the versions',
    )
    t.notMatch(stored.person.destino, /Comisaría/)
    t.type(stored.person._bidx_destino, 'string', 'with its blind index')
    t.same(stored.empty, { destino: null, _bidx_destino: null }, 'an empty value stays empty')
    t.same(stored.car, { conductor_habitual: 'PER-2026-00001', color: null }, 'the renamed field kept its value')
    t.same(
      cli.raw((db) =>
        db
          .prepare("select name from pragma_index_info('cx_vehiculos__conductor_habitual__estado') order by seqno")
          .all(),
      ),
      [{ name: 'conductor_habitual' }, { name: 'estado' }],
      'the composite index on the renamed field exists',
    )
    t.same(
      stored.migrated,
      [
        { record_id: ids.person, fields: '["destino"]' },
        { record_id: ids.car, fields: '["conductor_habitual"]' },
      ],
      'each rewritten record is in the audit chain; the others (no value in the changed fields) keep their hash',
    )

    await cli.withService(async (service, token) => {
      t.match(await api(service, token, 'GET', `/personal/${ids.person}`), {
        status: 200,
        body: { data: { destino: 'Comisaría Centro' } },
      })
      t.match(
        await api(service, token, 'GET', '/personal?destino=Comisar%C3%ADa%20Centro'),
        { status: 200, body: { data: { total: 1 } } },
        'found by its blind index',
      )
      t.match(await api(service, token, 'GET', `/vehiculos/${ids.car}`), {
        status: 200,
        body: { data: { conductor_habitual: 'PER-2026-00001', marca: 'Seat' } },
      })
      // The kept versions follow: renamed, and read back as before.
      t.match(await api(service, token, 'GET', `/vehiculos/${ids.car}?version=1`), {
        status: 200,
        body: { data: { conductor_habitual: 'PER-2026-00001' } },
      })
      t.match(await api(service, token, 'GET', `/personal/${ids.person}?version=1`), {
        status: 200,
        body: { data: { destino: 'Comisaría Centro' } },
      })
      t.match(await api(service, token, 'POST', '/objetos_perdidos', { descripcion: 'Cartera' }), {
        status: 201,
        body: { data: { _id: /^OBP-/ } },
      })
    }, evolvedFile)
    const verify = await cli.run(['audit', 'verify'], { env: { MODULES_FILE: evolvedFile } })
    t.equal(verify.status, 0, `hashes and chain hold after the migration: ${verify.stdout}`)
    t.equal(
      (await cli.run(['migrate'], { env: { MODULES_FILE: evolvedFile } })).stdout,
      'La base de datos ya corresponde a modules.yaml: no hay cambios.\n',
    )
  })

  t.test('removing a field with values is refused with the records, and nothing is lost', async (t) => {
    const reducedFile = join(cli.dataDir, 'modules-reduced.yaml')
    writeFileSync(reducedFile, evolved.replace('      marca: { type: string }\n', ''))
    const rows = () => cli.raw((db) => db.prepare('select * from vehiculos order by _row').all())
    const kept = rows()
    const refused = await cli.run(['migrate'], { env: { MODULES_FILE: reducedFile } })
    t.equal(refused.status, 1)
    t.match(
      refused.stdout,
      `Quitar el campo 'vehiculos.marca'  [REQUIERE --allow-data-loss]\n   Registros afectados (1): ${ids.car}`,
    )
    t.match(refused.stderr, /^records: la migración quitaría datos de la API; nada se ha modificado/)
    t.ok(noStack(refused))
    t.same(rows(), kept, 'nothing changed')
    const json = JSON.parse(
      (await cli.run(['migrate', '--dry-run', '--json'], { env: { MODULES_FILE: reducedFile } })).stdout,
    )
    t.match(json, { blocked: true, steps: [{ kind: 'remove_field', affected: [ids.car], blocked: true }] })

    const allowed = await cli.run(['migrate', '--allow-data-loss'], { env: { MODULES_FILE: reducedFile } })
    t.equal(allowed.status, 0, allowed.stderr)
    const archived = cli.raw((db) => {
      const column = (
        db.prepare("select name from pragma_table_info('vehiculos') where name like '_archived_%marca'").get() as {
          name: string
        }
      ).name
      return db.prepare(`select "${column}" as marca from vehiculos where _id = ?`).get(ids.car)
    })
    t.same(archived, { marca: 'Seat' }, 'the value is archived in the table, not dropped')
    t.equal(
      (await cli.run(['audit', 'verify'], { env: { MODULES_FILE: reducedFile } })).status,
      0,
      'and verify still holds',
    )
  })

  t.test('a narrower enum with values outside is refused, listing the records', async (t) => {
    const narrowFile = join(cli.dataDir, 'modules-narrow.yaml')
    writeFileSync(
      narrowFile,
      evolved
        .replace('      marca: { type: string }\n', '')
        .replace('enum: [patrulla, moto, furgon, todoterreno]', 'enum: [moto, furgon, todoterreno]'),
    )
    const refused = await cli.run(['migrate', '--json'], { env: { MODULES_FILE: narrowFile } })
    t.equal(refused.status, 1)
    t.match(JSON.parse(refused.stdout), { blocked: true, steps: [{ kind: 'narrow_enum', affected: [ids.car] }] })
  })

  t.test('a unique field that changes type keeps its unique index, on the new column', async (t) => {
    const retypedFile = join(cli.dataDir, 'modules-retyped.yaml')
    writeFileSync(
      retypedFile,
      evolved
        .replace('      marca: { type: string }\n', '')
        .replace(
          'matricula: { type: string, required: true, unique: true }',
          'matricula: { type: text, required: true, unique: true }',
        ),
    )
    const applied = await cli.run(['migrate', '--allow-data-loss'], { env: { MODULES_FILE: retypedFile } })
    t.equal(applied.status, 0, applied.stderr)
    const indexed = cli.raw((db) =>
      db
        .prepare(
          `select il.name as index_name, ii.name as column_name from pragma_index_list('vehiculos') il
      join pragma_index_info(il.name) ii where ii.name like '%matricula' order by 1, 2`,
        )
        .all(),
    )
    t.same(
      indexed,
      [{ index_name: 'ux_vehiculos_matricula', column_name: 'matricula' }],
      'the unique index is on the new column; the archived one keeps none',
    )
  })
})
