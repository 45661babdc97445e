// D41, the property that keeps blocking in the store: for random denuncias, a random set of them
// (and of the people they name) blocked and unblocked again, and each role, no list, total, text
// search, filter, expand, GET, history or past version gives anything of a blocked record, but
// the read by id of a `denuncias.bloqueados` holder that gives a motivo; and a list holds exactly
// what the same user's GET allows. The live feed and exports read through the same lists and are
// checked path by path in blocking.test.ts. Both databases.
import fc from 'fast-check'
import t from 'tap'
import { startTestApi, VALID, type Reply } from '../../helpers/api.js'
import { modulesWithCustodian } from './support.js'

const PEOPLE = ['PER-2026-00011', 'PER-2026-00012', 'PER-2026-00013'] as const
const MOTIVO = { 'x-motivo': 'Requerimiento judicial' }

interface Known {
  readonly id: string
  readonly assigned: string | undefined
  readonly word: string
  blocked: boolean
}

t.test('D41: nothing of a blocked record leaves by any path but a bloqueados read with motivo', async (t) => {
  const api = await startTestApi(t, { env: { MODULES_FILE: modulesWithCustodian(t) } })
  const admin = await api.adminToken()
  const dpd = (await api.userWithRole('dpd')).token
  const users = [
    { name: 'superadmin', token: admin, person: undefined as string | undefined, custodian: false },
    ...(await Promise.all(
      PEOPLE.slice(0, 2).map(async (person) => ({
        name: `agente ${person}`,
        token: (await api.userWithRole('agente', { personal_id: person })).token,
        person: person as string | undefined,
        custodian: false,
      })),
    )),
    { name: 'consulta', token: (await api.userWithRole('consulta')).token, person: undefined, custodian: false },
    { name: 'custodio', token: (await api.userWithRole('custodio')).token, person: undefined, custodian: true },
  ]
  await api.seedTargets({ agente_asignado: PEOPLE[2] }, 'denuncias')
  const known: Known[] = []
  const blockedPeople = new Set<string>()
  const decide = async (module: string, id: string, decision: 'bloquear' | 'desbloquear') => {
    const reply = await api.request('POST', `/retencion/${module}/${id}`, {
      token: dpd,
      body: { decision, motivo: `Prueba: ${decision}` },
    })
    if (reply.status !== 200) throw new Error(`${decision} ${id}: ${reply.status} ${JSON.stringify(reply.body)}`)
  }
  // An agente's scope: the denuncias assigned to their person (all are created by the superadmin).
  const inScope = (user: (typeof users)[number], record: Known) =>
    user.person === undefined || record.assigned === user.person
  const ids = (reply: Reply): string[] => (reply.body.data.records as { _id: string }[]).map((r) => r._id)
  let run = 0
  /** A failed check says which, and to whom (the property's own counterexample cannot: state carries over runs). */
  const fail = (line: number): false => {
    console.error(`check at line ${line} failed`)
    return false
  }

  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.option(fc.constantFrom(...PEOPLE), { nil: undefined }), { minLength: 1, maxLength: 3 }),
      fc.array(fc.nat(), { maxLength: 3 }),
      fc.option(fc.constantFrom(...PEOPLE), { nil: undefined }),
      fc.nat({ max: users.length - 1 }),
      async (assigned, toggles, person, who) => {
        run += 1
        const word = `clave${run}x`
        for (const a of assigned) {
          const body = {
            ...VALID['denuncias']!(),
            lugar_hechos: `Calle ${word}`,
            ...(a === undefined ? {} : { agente_asignado: a }),
          }
          const created = await api.create('denuncias', body)
          known.push({ id: created._id, assigned: a, word, blocked: false })
        }
        // Block or unblock some (of this run or before), and perhaps a person they name.
        const touched = new Set<Known>()
        for (const n of toggles) touched.add(known[n % known.length]!)
        for (const record of touched) {
          await decide('denuncias', record.id, record.blocked ? 'desbloquear' : 'bloquear')
          record.blocked = !record.blocked
        }
        if (person !== undefined) {
          await decide('personal', person, blockedPeople.has(person) ? 'desbloquear' : 'bloquear')
          if (blockedPeople.has(person)) blockedPeople.delete(person)
          else blockedPeople.add(person)
        }

        const user = users[who]!
        const expected = known.filter((r) => inScope(user, r) && !r.blocked).map((r) => r.id)
        // Lists and totals: exactly the records in scope that are not blocked.
        const listed = await api.request('GET', '/denuncias?limit=1000', { token: user.token })
        if (listed.status !== 200 || listed.body.data.total !== expected.length) return fail(95)
        if (JSON.stringify(ids(listed).sort()) !== JSON.stringify([...expected].sort())) return fail(96)
        // Text search, a filter and a sort: the same restriction.
        const searched = await api.request('GET', `/denuncias?limit=1000&q=${word}`, { token: user.token })
        const wanted = known.filter((r) => r.word === word && inScope(user, r) && !r.blocked).map((r) => r.id)
        if (JSON.stringify(ids(searched).sort()) !== JSON.stringify(wanted.sort())) return fail(100)
        if (searched.body.data.total !== wanted.length) return fail(101)
        const filtered = await api.request('GET', `/denuncias?limit=1000&tipo=hurto&sort=-lugar_hechos`, {
          token: user.token,
        })
        if (JSON.stringify(ids(filtered).sort()) !== JSON.stringify([...expected].sort())) return fail(105)
        // expand (as the superadmin, who reads personal without a motivo): a blocked person stays its id.
        if (user.name === 'superadmin') {
          const page = await api.request('GET', '/denuncias?limit=1000&expand=agente_asignado', { token: user.token })
          if (page.status !== 200) return fail(109)
          for (const record of page.body.data.records as { agente_asignado: unknown }[]) {
            const value = record.agente_asignado
            if (value === null) continue
            const id = typeof value === 'string' ? value : (value as { _id: string })._id
            if (blockedPeople.has(id) !== (typeof value === 'string')) return fail(114)
          }
        }
        // By id: what the list holds is 200; a blocked record in scope 403 (400 without a motivo
        // for a bloqueados holder, 200 with one); outside the scope 404.
        for (const record of known.filter((r) => r.word === word || touched.has(r))) {
          const want = !inScope(user, record) ? 404 : !record.blocked ? 200 : user.custodian ? 400 : 403
          for (const path of [
            `/denuncias/${record.id}`,
            `/denuncias/${record.id}/historial`,
            `/denuncias/${record.id}?version=1`,
          ]) {
            const plain = await api.request('GET', path, { token: user.token })
            if (plain.status !== want) return fail(127)
            if (want !== 200 && JSON.stringify(plain.body).includes(word)) return fail(128)
            const justified = await api.request('GET', path, { token: user.token, headers: MOTIVO })
            const wantJustified = want === 400 ? 200 : want
            if (justified.status !== wantJustified) return fail(131)
          }
        }
        return true
      },
    ),
    { numRuns: 25 },
  )
})
