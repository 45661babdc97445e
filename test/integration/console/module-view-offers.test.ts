// D46: what GET /me/modulos offers a role to filter, sort and search by is what GET /{module}
// accepts from it, and what it does not offer is refused: both come from one rule
// (records/query-access.ts). Checked for a user of every role of the shipped modules.yaml, on
// every module, field and operator, with values of the field's type (so a refusal is the rule's,
// not a malformed value's).
import t from 'tap'
import { FIELD_TYPES, FILTER_OPERATORS } from '../../../src/compile/field-types.js'
import type { FieldSpec } from '../../../src/compile/types.js'
import { startTestApi, VALID } from '../../helpers/api.js'

/** A query-string value the field's type parses: its OpenAPI example. */
function exampleText(field: FieldSpec): string {
  const value = FIELD_TYPES[field.def.type].example(field)
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : 'x'
}

const valueFor = (field: FieldSpec, op: string): string =>
  op === 'null' ? 'true' : (field.def.enum?.[0] ?? exampleText(field))

t.test('D46: every filter, sort and search /me/modulos offers is accepted; the rest is refused', async (t) => {
  const api = await startTestApi(t)
  const { spec } = api.service
  const person = await api.create('personal', VALID['personal']!())
  for (const [module, body] of Object.entries(VALID)) if (module !== 'personal') await api.create(module, body())
  // The header is accepted everywhere; where motivo_requerido asks for it, a list needs it.
  const headers = { 'x-motivo': 'Comprobación de la oferta' }
  let accepted = 0
  let refused = 0
  for (const role of spec.roles.keys()) {
    const user = await api.userWithRole(role, { personal_id: person._id })
    const list = (module: string, query: string) =>
      api.request('GET', `/${module}?limit=1${query}`, { token: user.token, headers })
    const reply = await api.request('GET', '/me/modulos', { token: user.token })
    t.equal(reply.status, 200, `${role}: its view`)
    const views = new Map<string, any>(reply.body.data.map((m: any) => [m.nombre, m]))
    for (const module of spec.modules) {
      const status = (await list(module.name, '')).status
      t.equal(status, views.has(module.name) ? 200 : 403, `${role} lists ${module.name} exactly when offered it`)
    }
    for (const [name, view] of views) {
      const module = spec.moduleByName.get(name)!
      // Every query of the module at once: [query, offered, the status of its refusal].
      const queries: [string, boolean, number][] = [['q=ejemplo', view.busqueda, 400]]
      for (const field of view.campos) {
        const compiled = module.fieldsByName.get(field.nombre)!
        for (const op of FILTER_OPERATORS) {
          const query = `${encodeURIComponent(`${field.nombre}[${op}]`)}=${encodeURIComponent(valueFor(compiled, op))}`
          // Not offered: 403 when the field's type has the operator (the access rule refuses it), else 400.
          queries.push([query, field.operadores.includes(op), compiled.operators.includes(op) ? 403 : 400])
        }
        queries.push([`sort=-${field.nombre}`, field.ordenable, compiled.sortable ? 403 : 400])
      }
      const answers = await Promise.all(queries.map(([query]) => list(name, `&${query}`)))
      const problems = queries.flatMap(([query, offered, refusal], i) => {
        const { status, body } = answers[i]!
        const expected = offered ? 200 : refusal
        if (offered) accepted++
        else refused++
        return status === expected ? [] : [`${query}: ${status}, not ${expected} ${JSON.stringify(body.details ?? '')}`]
      })
      t.same(problems, [], `${role} on ${name}: the offer is what the list accepts`)
    }
  }
  t.ok(accepted > 500 && refused > 500, `compared ${accepted} accepted and ${refused} refused queries`)
})
