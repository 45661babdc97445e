// A scoped list's pages: each branch of an or-ed scope yields only the rows a page can
// need (its filters, order and offset + limit, scope-sql.ts BranchPage), so a page must still be
// exactly the slice of the whole scoped list at that offset, whichever branch its rows come from,
// with records in both branches counted once. Checked against the whole list for random pages.
// A plain list reads its module's generation once for its total and its scope's branches.
import fc from 'fast-check'
import t from 'tap'
import { plainPageShapes } from '../../../src/db/records/plain-page.js'
import { ON_POSTGRES, startTestApi, VALID } from '../../helpers/api.js'

const PRIORITIES = ['baja', 'media', 'alta', 'urgente'] as const
const SORTS = ['', '&sort=prioridad', '&sort=-prioridad', '&sort=-fecha_hechos,prioridad', '&sort=-_created'] as const

t.test('every page of a scoped list is the slice of the whole scoped list', async (t) => {
  const api = await startTestApi(t)
  const admin = await api.adminToken()
  const mine = 'PER-2026-00011'
  const other = 'PER-2026-00012'
  const agente = await api.userWithRole('agente', { personal_id: mine })
  await api.userWithRole('agente', { personal_id: other }) // its personal record, for references
  const denuncia = (i: number) => ({
    ...VALID['denuncias']!(),
    prioridad: PRIORITIES[i % PRIORITIES.length],
    fecha_hechos: `2026-0${1 + (i % 9)}-1${i % 10} 10:00:00`,
  })
  // Interleaved, so that both branches reach into every page: assigned to me by another; created
  // by me and then reassigned (my creation only); created by me (both branches); nobody's of mine.
  for (let i = 0; i < 30; i++) {
    const kind = i % 4
    if (kind === 0) await api.create('denuncias', { ...denuncia(i), agente_asignado: mine }, admin)
    else if (kind === 3) await api.create('denuncias', { ...denuncia(i), agente_asignado: other }, admin)
    else {
      const id = (await api.create('denuncias', denuncia(i), agente.token))._id as string
      if (kind === 1) {
        const moved = await api.request('PUT', `/denuncias/${id}`, { token: admin, body: { agente_asignado: other } })
        t.equal(moved.status, 200, JSON.stringify(moved.body))
      }
    }
  }
  const ids = async (query: string) => {
    const reply = await api.request('GET', `/denuncias?${query}`, { token: agente.token })
    t.equal(reply.status, 200, query)
    return {
      ids: (reply.body.data.records as { _id: string }[]).map((r) => r._id),
      total: reply.body.data.total as number,
    }
  }
  const whole = await ids('limit=1000')
  t.equal(whole.total, 23, 'in scope: assigned to me (8), created by me (15), each once')
  t.equal(new Set(whole.ids).size, whole.ids.length, 'no record twice')

  await fc.assert(
    fc.asyncProperty(
      fc.nat({ max: 25 }),
      fc.integer({ min: 1, max: 7 }),
      fc.constantFrom(...SORTS),
      fc.option(fc.constantFrom(...PRIORITIES), { nil: undefined }),
      async (offset, limit, sort, priority) => {
        const filter = priority === undefined ? '' : `&prioridad=${priority}`
        const all = await ids(`limit=1000${sort}${filter}`)
        const page = await ids(`limit=${limit}&offset=${offset}${sort}${filter}`)
        return (
          page.total === all.total && JSON.stringify(page.ids) === JSON.stringify(all.ids.slice(offset, offset + limit))
        )
      },
    ),
    { numRuns: 40 },
  )
})

t.test('a branch that adds no record is left out of the plain page, and back after a write', async (t) => {
  const api = await startTestApi(t)
  const admin = await api.adminToken()
  const mine = 'PER-2026-00021'
  const other = 'PER-2026-00022'
  const agente = await api.userWithRole('agente', { personal_id: mine })
  await api.userWithRole('agente', { personal_id: other })
  const { db } = api.service.database
  const spec = api.service.spec.moduleByName.get('denuncias')!
  // What the agente's scope holds, straight from the table: assigned to them or created by them.
  const inScope = async () =>
    (
      await db
        .selectFrom('denuncias')
        .select('_id')
        .where('_deleted', 'is', null)
        .where((eb) => eb.or([eb('agente_asignado', '=', mine), eb('_created_by', '=', agente.id)]))
        .orderBy('_row')
        .execute()
    ).map((r) => String(r['_id']))
  const pagesMatch = async (label: string) => {
    const whole = await inScope()
    for (const [limit, offset] of [
      [100, 0],
      [3, 0],
      [3, 5],
      [4, 14],
      [5, whole.length - 2],
    ] as const) {
      const reply = await api.request('GET', `/denuncias?limit=${limit}&offset=${offset}`, { token: agente.token })
      t.same(
        (reply.body.data.records as { _id: string }[]).map((r) => r._id),
        whole.slice(offset, offset + limit),
        `${label}: limit ${limit} offset ${offset}`,
      )
      t.equal(reply.body.data.total, whole.length)
    }
    return whole
  }
  // Their own denuncias are assigned to them (the agente's default): "created by me" adds nothing.
  const created: string[] = []
  for (let i = 0; i < 20; i++) {
    if (i % 2 === 0) created.push((await api.create('denuncias', VALID['denuncias']!(), agente.token))._id as string)
    else await api.create('denuncias', { ...VALID['denuncias']!(), agente_asignado: i % 4 === 1 ? mine : other }, admin)
  }
  t.equal((await pagesMatch('created by me inside assigned to me')).length, 15)
  // Shapes of scoped pages ('-' is the unscoped one; `|all-unblocked`: none is blocked, D41).
  const shapes = plainPageShapes(db, spec).filter((s) => !s.startsWith('-'))
  t.match(shapes, [/^any\([^,]*\)(\|all-unblocked)?$/], `one branch read: ${shapes.join(' ')}`)

  // Reassigned: now only "created by me" holds it; the write brings the branch back.
  const moved = await api.request('PUT', `/denuncias/${created[3]}`, { token: admin, body: { agente_asignado: other } })
  t.equal(moved.status, 200)
  t.ok((await pagesMatch('one record only in created by me')).includes(created[3]!))
  // Unassigned (NULL): in "created by me" only, not "outside" it by a NULL comparison.
  const cleared = await api.request('PUT', `/denuncias/${created[5]}`, {
    token: admin,
    body: { agente_asignado: null },
  })
  t.equal(cleared.status, 200)
  t.ok((await pagesMatch('one record created by me, assigned to nobody')).includes(created[5]!))
})

t.test("a plain list reads its module's generation once, for its total and its scope's branches", async (t) => {
  const api = await startTestApi(t)
  const admin = await api.adminToken()
  const mine = 'PER-2026-00031'
  const agente = await api.userWithRole('agente', { personal_id: mine })
  for (let i = 0; i < 4; i++) await api.create('denuncias', VALID['denuncias']!(), agente.token)
  await api.create('denuncias', { ...VALID['denuncias']!(), agente_asignado: mine }, admin)
  // Every read of a generation, by key, through the service's own change watch.
  const { changes } = api.service
  const generation = changes.generation.bind(changes)
  const reads: string[] = []
  changes.generation = (key) => {
    reads.push(key)
    return generation(key)
  }
  t.teardown(() => void (changes.generation = generation))
  const readsOfList = async (token: string, query: string) => {
    reads.length = 0
    const reply = await api.request('GET', `/denuncias?${query}`, { token })
    t.equal(reply.status, 200, query)
    return reads.filter((key) => key === 'denuncias').length
  }
  // The agente's scope is or-ed (assigned to me, created by me): the page asks which branches
  // add records, the total is cached; both under the one generation the list read. SQLite looks
  // once more after the page, which ran without the blocked filter (D41): answered from memory
  // while `data_version` has not moved, no read of the table.
  const expected = ON_POSTGRES ? 1 : 2
  for (const query of ['limit=3', 'limit=3&offset=2', 'limit=100'])
    t.equal(await readsOfList(agente.token, query), expected, `agente, ${query}: the generation asked ${expected}x`)
  t.equal(await readsOfList(admin, 'limit=3'), expected, `unscoped: the generation asked ${expected}x`)
  // The control: the count sees one more, as a list that asked once more would give.
  await changes.generation('denuncias')
  t.equal(reads.filter((key) => key === 'denuncias').length, expected + 1, 'the wrapper counts every read')
})
