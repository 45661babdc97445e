// The property of property.test.ts with the query operators (D31): for random users, records and
// list queries (ranges, lists, emptiness, several sort keys), a list never returns a record the
// same user's GET refuses, holds exactly the records of the unscoped answer that GET allows, and
// counts in `total` what it lists. Operators go through recordQuery like every read: no second path.
import fc from 'fast-check'
import t from 'tap'
import { startTestApi, VALID } from '../../helpers/api.js'

const PEOPLE = ['PER-2026-00011', 'PER-2026-00012', 'PER-2026-00013'] as const
const ROLES = ['agente', 'agente', 'oficial', 'consulta'] as const
const PRIORITIES = ['baja', 'media', 'alta', 'urgente'] as const
const DAYS = ['2026-01-05', '2026-01-15', '2026-02-01', '2026-02-20'] as const

t.test('a list with operators never returns what GET refuses', async (t) => {
  const api = await startTestApi(t)
  const admin = await api.adminToken()
  const users: string[] = []
  for (const [i, role] of ROLES.entries())
    users.push((await api.userWithRole(role, { personal_id: PEOPLE[i % 3] })).token)
  const agentes = users.slice(0, 2)
  // Records by the admin (assigned or not) and by each agente, with varied dates and priorities.
  for (const [i, day] of [...DAYS, ...DAYS].entries()) {
    const body = {
      ...VALID['denuncias']!(),
      fecha_hechos: `${day} 1${i % 10}:00:00`,
      prioridad: PRIORITIES[i % PRIORITIES.length],
    }
    // An agente may not assign (field rule): theirs are assigned to them; the admin's to anyone or no one.
    if (i % 4 === 3) await api.create('denuncias', body, agentes[i % 2])
    else await api.create('denuncias', { ...body, ...(i % 3 === 0 ? {} : { agente_asignado: PEOPLE[i % 3] }) }, admin)
  }

  const condition = fc.oneof(
    fc
      .tuple(fc.constantFrom('gte', 'gt', 'lt', 'lte', 'ne', 'eq'), fc.constantFrom(...DAYS))
      .map(([op, day]): [string, string] => [`fecha_hechos[${op}]`, `${day} 12:00:00`]),
    fc.subarray([...PRIORITIES], { minLength: 1 }).map((list): [string, string] => ['prioridad[in]', list.join(',')]),
    fc
      .constantFrom('gt', 'lte', 'ne')
      .chain((op) => fc.constantFrom(...PRIORITIES).map((p): [string, string] => [`prioridad[${op}]`, p])),
    fc.boolean().map((empty): [string, string] => ['agente_asignado[null]', String(empty)]),
    fc.subarray([...PEOPLE], { minLength: 1 }).map((list): [string, string] => ['agente_asignado[in]', list.join(',')]),
  )
  const sort = fc.constantFrom('', '-prioridad,fecha_hechos', 'estado,-_created', '-fecha_hechos')

  await fc.assert(
    fc.asyncProperty(
      fc.uniqueArray(condition, { maxLength: 3, selector: ([key]) => key }),
      sort,
      fc.nat({ max: users.length - 1 }),
      async (conditions, order, who) => {
        const pairs: [string, string][] = [...conditions, ['limit', '1000']]
        if (order !== '') pairs.push(['sort', order])
        const search = new URLSearchParams(pairs)
        const all = await api.request('GET', `/denuncias?${search}`, { token: admin })
        const listed = await api.request('GET', `/denuncias?${search}`, { token: users[who] })
        if (all.status !== 200 || listed.status !== 200) return false
        const seen = (listed.body.data.records as { _id: string }[]).map((r) => r._id)
        if (listed.body.data.total !== seen.length) return false
        const allowed: string[] = []
        for (const { _id } of all.body.data.records as { _id: string }[]) {
          const one = await api.request('GET', `/denuncias/${_id}`, { token: users[who] })
          if (one.status === 200) allowed.push(_id)
          else if (one.status !== 404) return false
        }
        // The same records, in the same order: the scope only removes, never reorders.
        return JSON.stringify(seen) === JSON.stringify(allowed)
      },
    ),
    { numRuns: 25 },
  )
  t.pass('the property held')
})
