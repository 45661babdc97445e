// D40: every module table has a partial index on `_row` over its live rows. On SQLite a list
// page's OFFSET walks it and skips rows without opening them (the table scan it replaces opened
// every skipped row to read `_deleted`), and the plain count reads it instead of the table.
// Lists filtered on an indexed field keep their field's index. A database migrated before D40
// gets the index at its next start, as a safe step. Not a speed test: the bench measures S2f.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CompiledQuery, sql, type Compilable } from 'kysely'
import t, { type Test } from 'tap'
import { seedDenuncias } from '../../../scripts/bench/seed.js'
import type { OpenService } from '../../../src/app/service.js'
import { ROW_COLUMN } from '../../../src/compile/metadata.js'
import type { ModuleSpec } from '../../../src/compile/types.js'
import { plainPage } from '../../../src/db/records/plain-page.js'
import { everyLiveRow, recordQuery, type RecordQuery } from '../../../src/db/records/query.js'
import { pageColumns } from '../../../src/db/records/reads.js'
import { ON_POSTGRES, startTestApi, type TestApi } from '../../helpers/api.js'

const LIVE = 'ix_denuncias__live'

/** SQLite's plan of `query`, one line per step. */
async function planOf(service: OpenService, query: Compilable): Promise<string> {
  const compiled = query.compile()
  const rows = (
    await service.database.db.executeQuery(
      CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]),
    )
  ).rows
  return rows.map((r) => String((r as { detail: string }).detail)).join('\n')
}

/** SQLite's bytecode of `query`: the opcodes, in order. */
async function opcodesOf(service: OpenService, query: Compilable): Promise<string[]> {
  const compiled = query.compile()
  const rows = (
    await service.database.db.executeQuery(CompiledQuery.raw(`explain ${compiled.sql}`, [...compiled.parameters]))
  ).rows
  return rows.map((r) => String((r as { opcode: string }).opcode))
}

/** The live-rows indexes the database holds, by table. */
async function liveIndexes(service: OpenService): Promise<string[]> {
  const { db } = service.database
  const names = ON_POSTGRES
    ? (
        await sql<{ name: string }>`select indexname as name from pg_indexes where indexname like 'ix_%__live'`.execute(
          db,
        )
      ).rows
    : (
        await sql<{
          name: string
        }>`select name from sqlite_master where type = 'index' and name like 'ix_%__live'`.execute(db)
      ).rows
  return names.map((r) => r.name).sort()
}

const denunciasOf = (service: OpenService): ModuleSpec => {
  const spec = service.spec.moduleByName.get('denuncias')
  if (spec === undefined) throw new Error('no denuncias module')
  return spec
}

t.test(`D40: the live-rows index on ${ON_POSTGRES ? 'PostgreSQL' : 'SQLite'}`, async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-test-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  let expected: string[] = []

  await t.test('created with every module table; plain pages and counts read it', async (t) => {
    const api = await startTestApi(t, { dataDir })
    const { service } = api
    const spec = denunciasOf(service)
    expected = service.spec.modules.map((m) => `ix_${m.name}__live`).sort()
    t.same(await liveIndexes(service), expected, 'one per module table')
    await seedDenuncias(service, spec, 300, 'test-seed')
    const { db, dialect } = service.database

    if (!ON_POSTGRES) {
      const columns = pageColumns(spec, new Set(['tipo', 'estado']))
      const page = { compile: () => plainPage(db, spec, undefined, { dialect, limit: 20, offset: 150, columns }) }
      const plan = await planOf(service, page)
      // Besides it, only the two uncorrelated subqueries that leave blocked records out (D41), each
      // through the partial index of blocked rows.
      const outsideBlocking = plan.split('\n').filter((line) => !/_blk|_blb|_blr|SUBQUERY|BLOOM/.test(line))
      t.same(outsideBlocking, [`SCAN denuncias USING INDEX ${LIVE}`], `a plain page walks it:\n${plan}`)
      t.match(plan, /SEARCH _blk USING INDEX ix_retention_blocked/, 'whether any record is blocked: one probe')
      // The index's second term as a literal: a bound value that decides a partial index makes
      // SQLite prepare the statement anew at every run (S2f lost a third of its speed so).
      const compiled = page.compile()
      t.match(compiled.sql, `"_id" <> ''`, 'the marker is in the SQL')
      t.same(compiled.parameters, [20, 150], 'only the limit and the offset are bound')
      t.ok(
        (await opcodesOf(service, page)).includes('DeferredSeek'),
        'and opens a row only once the offset has passed it (the seek is deferred)',
      )
      // The count list() runs for a list without filter, scope or search, and for one with a filter.
      const all = recordQuery(db, spec, { user: null, dialect })
      const count = await planOf(
        service,
        everyLiveRow(all).select((eb) => eb.fn.countAll<number>().as('n')),
      )
      t.match(count, LIVE, `the plain count reads it, the smallest index of the live rows:\n${count}`)
      // Filtered pages and counts keep the plans they had before D40: a field's index, or a scan
      // of the table where no index serves (walking the live rows' index would seek every row).
      const page100 = (q: RecordQuery) => q.selectAll().orderBy(ROW_COLUMN, 'asc').limit(100)
      const filtered = {
        'an indexed field': page100(all.where('estado', '=', 'pendiente')),
        'a field without index': page100(all.where('lugar_hechos', '=', 'Plaza de España')),
        'a range': page100(all.where('fecha_hechos', '>=', '2026-01-01')),
        'a filtered count': all.where('lugar_hechos', '=', 'x').select((eb) => eb.fn.countAll<number>().as('n')),
      }
      for (const [name, query] of Object.entries(filtered)) {
        const plan = await planOf(service, query)
        t.notMatch(plan, LIVE, `${name}: not the live rows' index:\n${plan}`)
        if (name === 'an indexed field') t.match(plan, /ix_denuncias_estado|cx_denuncias__estado__prioridad/)
        else if (name !== 'a filtered count') t.match(plan, /^SCAN denuncias$/m, `${name}: the table, as before D40`)
      }
    }
    await samePage(t, api)

    // What a database migrated before D40 holds: neither the indexes nor their mention in the snapshot.
    for (const name of expected) await sql`drop index ${sql.id(name)}`.execute(db)
    const row = await db.selectFrom('_schema_state').select('snapshot').where('id', '=', 1).executeTakeFirstOrThrow()
    const snapshot = JSON.parse(String(row['snapshot'])) as {
      modules: Record<string, { table: { indexes: { name: string }[] } }>
    }
    for (const [name, module] of Object.entries(snapshot.modules))
      module.table.indexes = module.table.indexes.filter((i) => i.name !== `ix_${name}__live`)
    await db
      .updateTable('_schema_state')
      .set({ snapshot: JSON.stringify(snapshot) })
      .where('id', '=', 1)
      .execute()
    t.same(await liveIndexes(service), [], 'taken back to before D40')
  })

  await t.test('a database migrated before D40 gets it at its next start, as safe steps', async (t) => {
    const api = await startTestApi(t, { dataDir })
    t.same(
      [...api.service.migrated].sort(),
      expected.map((name) => `Crear el índice '${name}'`).sort(),
      'one step per module, applied at start, nothing else',
    )
    t.same(await liveIndexes(api.service), expected)
    await samePage(t, api)
  })
})

/** The page through the API answers the live denuncias 151 to 170 in creation order. */
async function samePage(t: Test, api: TestApi): Promise<void> {
  const token = await api.adminToken()
  const listed = await api.request('GET', '/denuncias?limit=20&offset=150&fields=tipo', { token })
  t.equal(listed.status, 200)
  const ids = (
    await api.service.database.db
      .selectFrom('denuncias')
      .select('_id')
      .where('_deleted', 'is', null)
      .orderBy(ROW_COLUMN, 'asc')
      .limit(20)
      .offset(150)
      .execute()
  ).map((r) => r['_id'])
  t.equal(ids.length, 20)
  t.same(
    (listed.body as { data: { records: { _id: string }[] } }).data.records.map((r) => r._id),
    ids,
    'the page in creation order',
  )
}
