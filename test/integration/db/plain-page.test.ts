// The plain list page as a prepared statement (src/db/records/plain-page.ts): a list with no
// filter, sort or text runs it, compiled once per module and scope shape; two agentes share the
// statement and each binds their own personal_id, so each still sees only their own records;
// its rows are those of the query built afresh; the cache of shapes stays bounded.
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import t, { type Test } from 'tap'
import { agentId, seedDenuncias } from '../../../scripts/bench/seed.js'
import { ROW_COLUMN } from '../../../src/compile/metadata.js'
import type { ModuleSpec } from '../../../src/compile/types.js'
import { PLAIN_PAGE_SHAPES, plainPage, plainPageShapes } from '../../../src/db/records/plain-page.js'
import { plainPageQuery, recordQuery } from '../../../src/db/records/query.js'
import type { ActingUser } from '../../../src/records/acting-user.js'
import { resolveScope, type ResolvedScope } from '../../../src/records/scope.js'
import { ON_POSTGRES, startTestApi, type TestApi } from '../../helpers/api.js'

/** A test service with `count` denuncias (and the agents they are assigned to), and their module. */
async function withDenuncias(t: Test, count: number): Promise<{ api: TestApi; spec: ModuleSpec }> {
  const api = await startTestApi(t)
  const spec = api.service.spec.moduleByName.get('denuncias')
  if (spec === undefined) throw new Error('no denuncias module')
  await seedDenuncias(api.service, spec, count, 'test-seed')
  return { api, spec }
}

t.test(
  `the plain list page is one prepared statement per scope shape on ${ON_POSTGRES ? 'PostgreSQL' : 'SQLite'}`,
  async (t) => {
    const { api, spec } = await withDenuncias(t, 400)
    const { db, dialect } = api.service.database
    const ids = (rows: readonly Record<string, unknown>[]) => rows.map((r) => String(r['_id']))

    // Through the API: two agentes, each their own personal_id, one statement between them.
    const mine = agentId(3)
    const theirs = agentId(4)
    const a = await api.userWithRole('agente', { personal_id: mine })
    const b = await api.userWithRole('agente', { personal_id: theirs })
    const listed = async (token: string) => {
      const reply = await api.request('GET', '/denuncias?limit=100&offset=0', { token })
      t.equal(reply.status, 200)
      return reply.body.data.records as Record<string, unknown>[]
    }
    const ofA = await listed(a.token)
    const ofB = await listed(b.token)
    t.equal(ofA.length, 20, 'agente A: the 1/20 of the denuncias assigned to A')
    t.equal(ofB.length, 20, 'agente B: the 1/20 assigned to B')
    t.ok(
      ofA.every((r) => r['agente_asignado'] === mine),
      'A sees only records in A scope',
    )
    t.ok(
      ofB.every((r) => r['agente_asignado'] === theirs),
      'B sees only records in B scope',
    )
    const scopedShapes = () => plainPageShapes(db, spec).filter((s) => s !== '-')
    t.equal(
      scopedShapes().length,
      1,
      `the list ran one prepared statement for both agentes: ${scopedShapes().join(' ')}`,
    )
    t.notMatch(scopedShapes()[0], /PER-/, 'the shape holds no value')

    // Directly: the same statement, different bound values; the rows of the query built afresh.
    const userA: ActingUser = { id: a.id, role: 'agente', fields: { personal_id: mine } }
    const userB: ActingUser = { id: b.id, role: 'agente', fields: { personal_id: theirs } }
    const pageOf = (user: ActingUser | null, limit: number, offset: number) =>
      plainPage(db, spec, resolveScope(spec, user, 'read'), { dialect, limit, offset })
    const qa = pageOf(userA, 100, 0)
    const qb = pageOf(userB, 100, 0)
    t.equal(qa.sql, qb.sql, 'one SQL text for both agentes')
    t.notMatch(qa.sql, /PER-/, 'no personal_id in the SQL')
    t.ok(qa.parameters.includes(mine) && !qa.parameters.includes(theirs), "A's statement binds A's personal_id")
    t.ok(qb.parameters.includes(theirs) && !qb.parameters.includes(mine), "B's statement binds B's personal_id")
    t.same(ids((await db.executeQuery(qa)).rows), ids(ofA), 'A: the rows the list answered')
    t.same(ids((await db.executeQuery(qb)).rows), ids(ofB), 'B: the rows the list answered')

    for (const user of [null, userA, userB])
      for (const [limit, offset] of [
        [100, 0],
        [7, 0],
        [7, 5],
        [3, 18],
        [5, 390],
      ] as const) {
        const prepared = ids((await db.executeQuery(pageOf(user, limit, offset))).rows)
        // Built afresh, the scope's values, limit and offset in the query as Kysely binds them.
        const fresh = ids(
          await plainPageQuery(db, spec, resolveScope(spec, user, 'read'), { dialect, limit, offset }).execute(),
        )
        const slice = ids(
          await recordQuery(db, spec, { user, dialect }).selectAll().orderBy(ROW_COLUMN).execute(),
        ).slice(offset, offset + limit)
        const who = user === null ? 'unscoped' : String(user.fields['personal_id'])
        t.same(prepared, fresh, `${who} limit ${limit} offset ${offset}: the unprepared page's rows`)
        t.same(prepared, slice, `${who} limit ${limit} offset ${offset}: the slice of the whole list`)
      }
    // The API read the agente scope without its "created by me" branch (these agentes created
    // nothing: scope-branches.ts); the direct calls above read it whole.
    t.equal(plainPageShapes(db, spec).length, 3, 'three shapes: unscoped, the agente scope as read, and whole')

    // Shapes past the bound (IN lists of 0 to 39 values) evict the oldest; each page still right.
    for (let n = 0; n < PLAIN_PAGE_SHAPES + 8; n++) {
      const values = Array.from({ length: n }, (_, i) => agentId(1 + (i % 20)))
      const scope: ResolvedScope = { kind: 'in', column: 'agente_asignado', storage: 'text', values }
      const rows = (await db.executeQuery(plainPage(db, spec, scope, { dialect, limit: 1000, offset: 0 }))).rows
      const expected = new Set(values)
      t.equal(rows.length, expected.size * 20, `IN of ${n} values: every record of those agents`)
      t.ok(
        rows.every((r) => expected.has(String(r['agente_asignado']))),
        `IN of ${n} values: only theirs`,
      )
    }
    t.equal(plainPageShapes(db, spec).length, PLAIN_PAGE_SHAPES, 'the cache holds no more than its bound')

    // A value converted for its column before it is bound (a boolean is 1 on SQLite, whose driver
    // takes no booleans), as the unprepared query converts it; in an or-ed scope and alone.
    const usuarios = api.service.spec.moduleByName.get('usuarios')
    if (usuarios === undefined) throw new Error('no usuarios module')
    const active: ResolvedScope = { kind: 'in', column: 'activo', storage: 'boolean', values: [true] }
    const named: ResolvedScope = { kind: 'in', column: 'username', storage: 'text', values: [a.username] }
    for (const scope of [active, { kind: 'any', of: [active, named] } as const]) {
      const page = { dialect, limit: 100, offset: 0 }
      const prepared = ids((await db.executeQuery(plainPage(db, usuarios, scope, page))).rows)
      const fresh = ids(await plainPageQuery(db, usuarios, scope, page).execute())
      t.ok(prepared.length >= 3, `${scope.kind}: the admin and both agentes are active`)
      t.same(prepared, fresh, `${scope.kind}: the boolean bound converted, as the unprepared query binds it`)
    }
  },
)

t.test(
  `D41: while no record is blocked the plain page runs without the blocked filter (SQLite), and a block brings it back at once, on ${ON_POSTGRES ? 'PostgreSQL' : 'SQLite'}`,
  async (t) => {
    const { api, spec } = await withDenuncias(t, 30)
    const { db, dialect } = api.service.database
    const admin = await api.adminToken()
    const dpd = (await api.userWithRole('dpd')).token
    const listed = async () => {
      const reply = await api.request('GET', '/denuncias?limit=100', { token: admin })
      t.equal(reply.status, 200)
      const data = reply.body.data as { total: number; records: { _id: string }[] }
      return { total: data.total, ids: data.records.map((r) => r._id) }
    }
    const decide = async (id: string, decision: 'bloquear' | 'desbloquear') => {
      const reply = await api.request('POST', `/retencion/denuncias/${id}`, {
        token: dpd,
        body: { decision, motivo: `Prueba: ${decision}` },
      })
      t.equal(reply.status, 200, decision)
    }
    const before = await listed()
    t.equal(before.total, 30)
    const id = before.ids[4] as string
    // PostgreSQL keeps the filter: the check again after the page would be a round trip.
    const unfiltered = ON_POSTGRES ? [] : ['-|all-unblocked']
    t.same(plainPageShapes(db, spec), [...unfiltered, ...(ON_POSTGRES ? ['-'] : [])], 'none blocked: which page ran')

    await decide(id, 'bloquear')
    const blocked = await listed()
    t.equal(blocked.total, 29, 'the next list leaves the blocked record out of the total')
    t.notOk(blocked.ids.includes(id), 'and out of the page')
    t.same(plainPageShapes(db, spec), [...unfiltered, '-'], 'one blocked: the list ran the page with the filter')

    await decide(id, 'desbloquear')
    const lifted = await listed()
    t.equal(lifted.total, 30, 'lifted: back in the total')
    t.ok(lifted.ids.includes(id), 'and in the page')

    // The two statements themselves.
    const page = { dialect, limit: 10, offset: 5 }
    t.notMatch(plainPage(db, spec, undefined, { ...page, noneBlocked: true }).sql, /_retention/, 'without the filter')
    t.match(plainPage(db, spec, undefined, page).sql, /_retention/, 'with it')
    t.same(
      (await db.executeQuery(plainPage(db, spec, undefined, { ...page, noneBlocked: true }))).rows,
      (await db.executeQuery(plainPage(db, spec, undefined, page))).rows,
      'the same rows while none is blocked',
    )
  },
)

t.test(
  'D41, SQLite: a block committed by another connection reaches the next unfiltered page',
  { skip: ON_POSTGRES ? 'the unfiltered page is SQLite only' : false },
  async (t) => {
    const { api, spec } = await withDenuncias(t, 12)
    const admin = await api.adminToken()
    const listed = async () => {
      const reply = await api.request('GET', '/denuncias?limit=100', { token: admin })
      t.equal(reply.status, 200)
      return (reply.body.data.records as { _id: string }[]).map((r) => r._id)
    }
    const before = await listed()
    const id = before[3] as string
    t.same(plainPageShapes(api.service.database.db, spec), ['-|all-unblocked'], 'none blocked: no filter')

    // What a block's transaction writes, from another connection to the file (another process
    // would): the block itself and the module's generation (retention-decisions.ts).
    const other = new BetterSqlite3(join(api.dataDir, 'records.db'))
    t.teardown(() => other.close())
    other.pragma('busy_timeout = 5000')
    other.transaction(() => {
      other
        .prepare('insert into _retention (module, record_id, blocked_at, blocked_by) values (?, ?, ?, ?)')
        .run('denuncias', id, '2026-05-10 09:00:00', 'otro-proceso')
      other.prepare("update _sequences set value = value + 1 where prefix = '_gen:denuncias' and year = 0").run()
    })()

    const after = await listed()
    t.notOk(after.includes(id), 'the next list leaves the record out')
    t.equal(after.length, before.length - 1)
  },
)
