// S2f of the bench: a list that shows some fields reads only their columns and the metadata; no
// ciphertext and no blind index of a field it does not show.
import t from 'tap'
import { pageColumns } from '../../../src/db/records/reads.js'
import { moduleOf, shippedService } from '../support/config.js'

const denuncias = moduleOf(shippedService(), 'denuncias')

t.test('every column when every field shows', async (t) => {
  t.equal(pageColumns(denuncias, undefined), undefined)
})

t.test('the shown fields and the metadata, nothing else', async (t) => {
  const columns = pageColumns(denuncias, new Set(['tipo', 'estado']))!
  t.ok(columns.includes('tipo') && columns.includes('estado'))
  for (const meta of ['_id', '_version', '_created', '_modified', '_hash']) t.ok(columns.includes(meta), meta)
  for (const field of denuncias.fields.filter((f) => f.name !== 'tipo' && f.name !== 'estado')) {
    t.notOk(columns.includes(field.column), `${field.name} not read`)
    if (field.blindIndexColumn !== undefined) t.notOk(columns.includes(field.blindIndexColumn))
  }
})

t.test('an encrypted field shown: its ciphertext, never its blind index', async (t) => {
  const dni = denuncias.fieldsByName.get('denunciante_dni')!
  const columns = pageColumns(denuncias, new Set(['denunciante_dni']))!
  t.ok(columns.includes(dni.column))
  t.notOk(dni.blindIndexColumn !== undefined && columns.includes(dni.blindIndexColumn))
})
