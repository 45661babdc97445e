// `records migrate` on PostgreSQL: the scenario of migrate.test.ts (a new module, a new
// field, a rename, a composite index, a plain field turned encrypted) planned, applied and verified on a fresh
// PostgreSQL database; when none answers, said loudly (and a failure in CI).
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import t from 'tap'
import { createTestDatabase, requirePostgres, urlOf } from '../../helpers/postgres.js'
import { evolved } from './evolved-modules.js'
import { api, createCli } from './support.js'

const reachable = await requirePostgres(t, 'records migrate was not tested on PostgreSQL')

t.test(
  'records migrate on PostgreSQL: dry run, apply, encrypted at rest, audit verify',
  { skip: reachable ? false : 'PostgreSQL is not reachable' },
  async (t) => {
    const url = urlOf(await createTestDatabase())
    const cli = createCli(t, { DATABASE_URL: url })
    const evolvedFile = join(cli.dataDir, 'modules-evolved.yaml')
    writeFileSync(evolvedFile, evolved)
    t.equal((await cli.run(['migrate'])).status, 0, "the schema of today's modules.yaml")
    const person = await cli.withService(async (service, token) => {
      // The vehicle's asignado_a references the staff record (a ref): created first.
      const id = (
        await api(service, token, 'POST', '/personal', {
          tip: 'TIP-1',
          nombre: 'Marta',
          apellidos: 'Ruiz',
          escala: 'oficial',
          destino: 'Comisaría Centro',
        })
      ).body.data._id as string
      t.equal(
        (
          await api(service, token, 'POST', '/vehiculos', {
            matricula: '1234-ABC',
            tipo: 'patrulla',
            asignado_a: id,
          })
        ).status,
        201,
      )
      return id
    })

    const dry = await cli.run(['migrate', '--dry-run', '--json'], { env: { MODULES_FILE: evolvedFile } })
    t.equal(dry.status, 0, dry.stderr)
    const sql = (JSON.parse(dry.stdout) as { steps: { sql: string[] }[] }).steps.flatMap((step) => step.sql)
    t.ok(
      sql.some((q) => q.startsWith('create table "objetos_perdidos" ("_row" bigserial primary key')),
      "the plan carries PostgreSQL's own SQL",
    )
    t.ok(sql.includes('alter table "vehiculos" rename column "asignado_a" to "conductor_habitual";'))
    t.ok(
      sql.includes(
        'create index "cx_vehiculos__conductor_habitual__estado" on "vehiculos" ("conductor_habitual", "estado") where "_deleted" is null;',
      ),
      'the composite index on the renamed field',
    )

    const applied = await cli.run(['migrate'], { env: { MODULES_FILE: evolvedFile } })
    t.equal(applied.status, 0, applied.stderr)
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    t.teardown(() => client.end())
    const stored = (await client.query('select destino from personal where _id = $1', [person])).rows[0] as {
      destino: string
    }
    t.match(stored.destino, /^r1\./, 'the existing value is ciphertext now, under its record key (D41)')
    t.notMatch(stored.destino, /Comisaría/)
    const renamed = (await client.query('select conductor_habitual from vehiculos')).rows[0] as {
      conductor_habitual: string
    }
    t.equal(renamed.conductor_habitual, 'PER-2026-00001', 'the renamed column kept its value')

    await cli.withService(async (service, token) => {
      t.match(
        (await api(service, token, 'GET', `/personal/${person}`)).body.data,
        { destino: 'Comisaría Centro' },
        'and reads back through the API',
      )
      t.equal(
        (await api(service, token, 'POST', '/objetos_perdidos', { descripcion: 'Cartera' })).status,
        201,
        'the new module serves',
      )
    }, evolvedFile)
    const verify = await cli.run(['audit', 'verify'], { env: { MODULES_FILE: evolvedFile } })
    t.equal(verify.status, 0, verify.stdout + verify.stderr)
  },
)
