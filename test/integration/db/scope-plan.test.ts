// The scoped list of an agente reads through indexes, on SQLite (`EXPLAIN QUERY
// PLAN`) and PostgreSQL (`EXPLAIN`, sequential scans priced out in the test's transaction):
// the page and the total of a scoped list, built by the real code path (`recordQuery`, the one
// place every read starts), never scan the module's table. If a scope stops being indexable
// (a field without an index, a condition SQL cannot search), this fails. Not a speed test:
// `npm run bench` measures the scoped list against an unscoped one.
import { CompiledQuery, sql, type Compilable } from 'kysely'
import t from 'tap'
import { agentId, seedDenuncias } from '../../../scripts/bench/seed.js'
import type { OpenService } from '../../../src/app/service.js'
import { ROW_COLUMN } from '../../../src/compile/metadata.js'
import { plainPage } from '../../../src/db/records/plain-page.js'
import { plainPageQuery, recordQuery } from '../../../src/db/records/query.js'
import type { ActingUser } from '../../../src/records/acting-user.js'
import { resolveScope } from '../../../src/records/scope.js'
import { ON_POSTGRES, startTestApi } from '../../helpers/api.js'

/** The plan of `query` as the database prints it, one line per step. */
async function planOf(service: OpenService, query: Compilable): Promise<string> {
  const { db } = service.database
  const compiled = query.compile()
  if (!ON_POSTGRES) {
    const rows = (
      await db.executeQuery(CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]))
    ).rows
    return rows.map((r) => String((r as { detail: string }).detail)).join('\n')
  }
  // A small table is cheaper to scan; with scans priced out, the planner shows which index it would use.
  return db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx)
    const rows = (await trx.executeQuery(CompiledQuery.raw(`explain ${compiled.sql}`, [...compiled.parameters]))).rows
    return rows.map((r) => String((r as Record<string, unknown>)['QUERY PLAN'])).join('\n')
  })
}

/** A full scan of the table: SQLite's `SCAN denuncias` (not `SEARCH`), PostgreSQL's `Seq Scan`. */
const FULL_SCAN = ON_POSTGRES ? /Seq Scan/ : /^SCAN denuncias\b/m

t.test(`a scoped agente's list and total use indexes on ${ON_POSTGRES ? 'PostgreSQL' : 'SQLite'}`, async (t) => {
  const api = await startTestApi(t)
  const spec = api.service.spec.moduleByName.get('denuncias')
  if (spec === undefined) throw new Error('no denuncias module')
  await seedDenuncias(api.service, spec, 2000, 'test-seed')
  const { db } = api.service.database
  if (ON_POSTGRES) await sql`analyze denuncias`.execute(db)
  else await sql`analyze`.execute(db)
  const dialect = api.service.database.dialect
  const agente: ActingUser = { id: 'USR-2026-00042', role: 'agente', fields: { personal_id: agentId(3) } }
  t.ok(spec.access.get('agente')?.scope, 'the shipped modules.yaml scopes agente in denuncias')

  const scoped = recordQuery(db, spec, { user: agente, dialect })
  const unscoped = recordQuery(db, spec, { user: null, dialect })
  const plans = {
    page: await planOf(api.service, scoped.selectAll().orderBy(ROW_COLUMN, 'asc').limit(100).offset(0)),
    total: await planOf(
      api.service,
      scoped.select((eb) => eb.fn.countAll<number>().as('n')),
    ),
    filtered: await planOf(
      api.service,
      scoped.where('estado', '=', 'pendiente').selectAll().orderBy(ROW_COLUMN, 'asc').limit(100),
    ),
    // What a plain list runs, built afresh (plainPageQuery): the page's ids from the two indexes, then its rows.
    ids: await planOf(
      api.service,
      plainPageQuery(db, spec, resolveScope(spec, agente, 'read'), { dialect, limit: 100, offset: 50 }),
    ),
    // The same page as list() runs it, a prepared statement with the agente's values bound (plain-page.ts).
    prepared: await planOf(api.service, {
      compile: () => plainPage(db, spec, resolveScope(spec, agente, 'read'), { dialect, limit: 100, offset: 50 }),
    }),
  }
  for (const [name, plan] of Object.entries(plans)) {
    t.notMatch(plan, FULL_SCAN, `${name}: no full scan of the table:\n${plan}`)
    t.match(
      plan,
      /ix_denuncias_agente_asignado|cx_denuncias__agente_asignado__estado/,
      `${name}: the scope's field index`,
    )
    t.match(plan, /ix_denuncias__created_by/, `${name}: the creator's index (the scope's other branch)`)
    if (!ON_POSTGRES && name !== 'total') t.notMatch(plan, /TEMP B-TREE/, `${name}: in _row order without a sort`)
  }
  if (!ON_POSTGRES)
    for (const name of ['ids', 'prepared'] as const)
      t.match(plans[name], /MERGE \(UNION\)/, `${name}: the two index searches merged in _row order, no sort`)
  if (ON_POSTGRES)
    for (const [name, plan] of Object.entries(plans))
      t.match(plan, /Index Cond: \(+agente_asignado = /, `${name}: the index is searched for the agente's value`)
  // The control: the same check flags a query that does read every row, so the assertions above
  // can fail. PostgreSQL, without sequential scans, walks a partial index with no condition instead.
  const scan = await planOf(api.service, unscoped.where('lugar_hechos', '=', 'Plaza de España').selectAll())
  // The scan itself, before the subplans that leave blocked records out (D41), each an index search.
  const scanOnly = scan.split(/\n\s*(?:InitPlan|SubPlan)/)[0] ?? scan
  if (ON_POSTGRES) t.notMatch(scanOnly, /Index Cond/, `a filter on a field without index reads every row:\n${scan}`)
  else t.match(scan, FULL_SCAN, `a filter on a field without index scans:\n${scan}`)

  const rows = await scoped.select(['agente_asignado', '_created_by']).execute()
  t.equal(rows.length, 100, 'the scope holds 1/20 of the seeded denuncias')
  t.ok(rows.every((r) => r['agente_asignado'] === agentId(3)))
})
