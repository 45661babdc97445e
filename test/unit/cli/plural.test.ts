// The command line agrees its counts: "1 aviso", "2 avisos", "1 rol", "0 roles".
import t from 'tap'
import { countOf } from '../../../src/cli/plural.js'

t.test('one takes the singular, any other count the plural', async (t) => {
  t.equal(countOf(1, 'avisos'), '1 aviso')
  t.equal(countOf(2, 'avisos'), '2 avisos')
  t.equal(countOf(0, 'avisos'), '0 avisos')
  t.equal(countOf(1, 'módulos'), '1 módulo')
  t.equal(countOf(1, 'roles'), '1 rol')
  t.equal(countOf(6, 'roles'), '6 roles')
  t.equal(countOf(1, 'problemas'), '1 problema')
  t.equal(countOf(1, 'versiones', 'versión'), '1 versión')
})
