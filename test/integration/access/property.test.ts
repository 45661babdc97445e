// The property that keeps the rules in one place (STYLE 9): for random users and
// records, a list never returns a record that the same user's GET refuses (and holds every one
// it allows), and a refused write changes nothing.
import fc from 'fast-check'
import t from 'tap'
import { startTestApi, VALID } from '../../helpers/api.js'

const PEOPLE = ['PER-2026-00011', 'PER-2026-00012', 'PER-2026-00013'] as const
const ROLES = ['agente', 'agente', 'agente', 'oficial', 'consulta', 'jefe'] as const
const STATES = ['pendiente', 'investigacion', 'archivada', 'judicializada'] as const

t.test('a list never returns what GET refuses; a refused write changes nothing', async (t) => {
  const api = await startTestApi(t)
  const admin = await api.adminToken()
  // Users: each role, with one of the personal_ids or none.
  const users: { token: string; role: string }[] = []
  for (const [i, role] of ROLES.entries()) {
    const personal = i === 2 ? {} : { personal_id: PEOPLE[i % PEOPLE.length] }
    users.push({ token: (await api.userWithRole(role, personal)).token, role })
  }
  const creators = [admin, ...users.filter((u) => u.role === 'agente').map((u) => u.token)]

  const record = fc.record({
    creator: fc.nat({ max: creators.length - 1 }),
    assigned: fc.option(fc.constantFrom(...PEOPLE), { nil: undefined }),
    observaciones: fc.option(fc.string({ maxLength: 8 }), { nil: undefined }),
  })
  await fc.assert(
    fc.asyncProperty(
      fc.array(record, { minLength: 1, maxLength: 4 }),
      fc.nat({ max: users.length - 1 }),
      async (records, who) => {
        for (const r of records) {
          const byAdmin = r.creator === 0
          const body = {
            ...VALID['denuncias']!(),
            ...(byAdmin && r.assigned !== undefined ? { agente_asignado: r.assigned } : {}),
            ...(r.observaciones === undefined ? {} : { observaciones: r.observaciones }),
          }
          await api.create('denuncias', body, creators[r.creator])
        }
        const user = users[who]!
        const all = (await api.request('GET', '/denuncias?limit=1000', { token: admin })).body.data.records as {
          _id: string
        }[]
        const listed = await api.request('GET', '/denuncias?limit=1000', { token: user.token })
        const seen = new Set((listed.body.data.records as { _id: string }[]).map((r) => r._id))
        if (listed.body.data.total !== seen.size) return false
        for (const { _id } of all) {
          const one = await api.request('GET', `/denuncias/${_id}`, { token: user.token })
          if (seen.has(_id) !== (one.status === 200)) return false
          if (!seen.has(_id) && one.status !== 404) return false
        }
        return true
      },
    ),
    { numRuns: 15 },
  )

  const write = fc.record({
    who: fc.nat({ max: users.length - 1 }),
    target: fc.nat({ max: 10_000 }),
    estado: fc.option(fc.constantFrom(...STATES), { nil: undefined }),
    assigned: fc.option(fc.constantFrom(...PEOPLE), { nil: undefined }),
    lugar: fc.option(fc.string({ minLength: 1, maxLength: 8 }), { nil: undefined }),
  })
  await fc.assert(
    fc.asyncProperty(write, async (w) => {
      const all = (await api.request('GET', '/denuncias?limit=1000', { token: admin })).body.data.records as {
        _id: string
      }[]
      const id = all[w.target % all.length]!._id
      const before = (await api.request('GET', `/denuncias/${id}`, { token: admin })).body.data
      const body = {
        ...(w.estado === undefined ? {} : { estado: w.estado }),
        ...(w.assigned === undefined ? {} : { agente_asignado: w.assigned }),
        ...(w.lugar === undefined ? {} : { lugar_hechos: w.lugar }),
      }
      const reply = await api.request('PUT', `/denuncias/${id}`, { token: users[w.who]!.token, body })
      if (reply.status === 200) return true
      if (![400, 403, 404, 409].includes(reply.status)) return false
      const after = (await api.request('GET', `/denuncias/${id}`, { token: admin })).body.data
      return JSON.stringify(after) === JSON.stringify(before)
    }),
    { numRuns: 40 },
  )
  t.pass('both properties held')
})
