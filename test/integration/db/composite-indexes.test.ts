// Composite indexes of modules.yaml on a real database (SQLite, or PostgreSQL under
// RECORDS_TEST_DATABASE=postgres): created at startup as partial indexes on live rows, dropped
// and created again when the file changes, and chosen by the database for the count of a list
// filtered on estado and prioridad (bench S3). Not a speed test: the bench measures speed.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CompiledQuery, sql } from 'kysely'
import t from 'tap'
import { seedDenuncias } from '../../../scripts/bench/seed.js'
import type { OpenService } from '../../../src/app/service.js'
import { ON_POSTGRES, REPO_MODULES, startTestApi } from '../../helpers/api.js'

const NAME = 'cx_denuncias__estado__prioridad'

interface IndexFound {
  readonly columns: readonly string[]
  readonly partial: boolean
  readonly unique: boolean
}

/** The index as the database itself describes it, or undefined. */
async function indexIn(service: OpenService, name: string): Promise<IndexFound | undefined> {
  const { db } = service.database
  if (ON_POSTGRES) {
    const row = (await sql<{ indexdef: string }>`select indexdef from pg_indexes where indexname = ${name}`.execute(db))
      .rows[0]
    if (row === undefined) return undefined
    const match = /^CREATE (UNIQUE )?INDEX \S+ ON \S+ USING btree \(([^)]*)\)( WHERE \(_deleted IS NULL\))?$/.exec(
      row.indexdef,
    )
    if (match === null) throw new Error(`unexpected index definition: ${row.indexdef}`)
    return { columns: (match[2] ?? '').split(', '), partial: match[3] !== undefined, unique: match[1] !== undefined }
  }
  const listed = (
    await sql<{ name: string; unique: number; partial: number }>`select * from pragma_index_list('denuncias')`.execute(
      db,
    )
  ).rows
  const entry = listed.find((r) => r.name === name)
  if (entry === undefined) return undefined
  const columns = (
    await sql<{ name: string }>`select name from pragma_index_info(${name}) order by seqno`.execute(db)
  ).rows.map((r) => r.name)
  return { columns, partial: entry.partial === 1, unique: entry.unique === 1 }
}

/** The plan of the list's count (records/store.ts `list`) for estado + prioridad, as text. */
async function countPlan(service: OpenService): Promise<string> {
  const { db } = service.database
  const count = db
    .selectFrom('denuncias')
    .where('_deleted', 'is', null)
    .where('estado', '=', 'pendiente')
    .where('prioridad', '=', 'alta')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .compile()
  if (!ON_POSTGRES) {
    const rows = (await db.executeQuery(CompiledQuery.raw(`explain query plan ${count.sql}`, [...count.parameters])))
      .rows
    return rows.map((r) => String((r as { detail: string }).detail)).join('\n')
  }
  // A small table is cheaper to scan; with scans priced out, the planner shows which index it would use.
  return db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx)
    await sql`analyze denuncias`.execute(trx)
    const rows = (await trx.executeQuery(CompiledQuery.raw(`explain ${count.sql}`, [...count.parameters]))).rows
    return rows.map((r) => String((r as Record<string, unknown>)['QUERY PLAN'])).join('\n')
  })
}

t.test(
  `indexes: [estado, prioridad] on ${ON_POSTGRES ? 'PostgreSQL' : 'SQLite'}: created at startup, used by the filtered count`,
  async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'records-test-'))
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
    const shipped = readFileSync(REPO_MODULES, 'utf8')
    const declaration = '    indexes:\n      - [estado, prioridad]\n'
    t.ok(shipped.includes(declaration), 'the shipped modules.yaml declares it')
    const without = join(dataDir, 'modules-without.yaml')
    writeFileSync(without, shipped.replace(declaration, '    indexes:\n'))

    await t.test('a database made without the declaration has no such index', async (t) => {
      const api = await startTestApi(t, { dataDir, env: { MODULES_FILE: without } })
      t.equal(await indexIn(api.service, NAME), undefined)
      const spec = api.service.spec.moduleByName.get('denuncias')
      if (spec === undefined) throw new Error('no denuncias module')
      await seedDenuncias(api.service, spec, 200, 'test-seed')
    })

    await t.test('started with the shipped file, it is created as a safe step', async (t) => {
      const api = await startTestApi(t, { dataDir })
      t.same(api.service.migrated, [`Crear el índice '${NAME}'`], 'applied at startup, nothing else')
      t.same(
        await indexIn(api.service, NAME),
        { columns: ['estado', 'prioridad'], partial: true, unique: false },
        'partial on live rows, in the declared order',
      )
      const plan = await countPlan(api.service)
      t.match(plan, NAME, `the count uses it:\n${plan}`)
      const token = await api.adminToken()
      const listed = await api.request('GET', '/denuncias?estado=pendiente&prioridad=alta&limit=5', { token })
      t.equal(listed.status, 200)
      t.ok(listed.body.data.total > 0, 'and the list it serves answers as before')
    })

    await t.test('taken out of the file, it is dropped at the next start', async (t) => {
      const api = await startTestApi(t, { dataDir, env: { MODULES_FILE: without } })
      t.same(api.service.migrated, [`Eliminar el índice '${NAME}'`])
      t.equal(await indexIn(api.service, NAME), undefined)
    })
  },
)
