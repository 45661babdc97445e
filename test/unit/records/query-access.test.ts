// The one rule of what a reader may filter, sort and search a list by (D16, D27, D46), against the
// compiled shipped modules.yaml: the store refuses by it and GET /me/modulos offers by it.
import t from 'tap'
import {
  checkQueryAccess,
  filterOperatorsFor,
  queryReader,
  searchableFor,
  sortableFor,
} from '../../../src/records/query-access.js'
import { moduleOf, shippedService } from '../support/config.js'

const denuncias = moduleOf(shippedService(), 'denuncias')
const field = (name: string) => denuncias.fieldsByName.get(name)!
const consulta = queryReader(denuncias, 'consulta', false)
const oficial = queryReader(denuncias, 'oficial', true)
const thrown = (work: () => void): unknown => {
  try {
    work()
  } catch (error) {
    return error
  }
  return undefined
}

t.test('D16: without descifrar an encrypted field is filtered by emptiness only', async (t) => {
  t.same(filterOperatorsFor(field('denunciante_dni'), consulta), ['null'])
  t.same(filterOperatorsFor(field('denunciante_dni'), oficial), ['eq', 'in', 'null'])
  t.equal(sortableFor(field('denunciante_dni'), oficial), false, 'an encrypted field never sorts')
  const query = {
    filters: [{ name: 'denunciante_dni', column: '_bi_x', op: 'eq' as const, value: 'x', blind: true }],
    sort: [],
  }
  t.match(
    thrown(() => checkQueryAccess(denuncias, query, consulta)),
    {
      statusCode: 403,
      details: [{ field: 'permiso', message: "El rol 'consulta' no tiene el permiso 'denuncias.descifrar'" }],
    },
  )
  t.doesNotThrow(() => checkQueryAccess(denuncias, query, oficial))
})

t.test('D27: a field the role cannot read is neither filtered, sorted nor searched', async (t) => {
  t.same(filterOperatorsFor(field('observaciones'), consulta), [])
  t.equal(searchableFor(field('observaciones'), consulta), false)
  t.equal(searchableFor(field('observaciones'), oficial), true)
  t.equal(sortableFor(field('tipo'), consulta), true)
  const sorted = { filters: [], sort: [{ column: 'observaciones', descending: false }] }
  t.match(
    thrown(() => checkQueryAccess(denuncias, sorted, consulta)),
    {
      statusCode: 403,
      details: [{ field: 'observaciones' }],
    },
  )
  t.doesNotThrow(
    () => checkQueryAccess(denuncias, sorted, queryReader(denuncias, null, false)),
    'no role: the operator',
  )
})
