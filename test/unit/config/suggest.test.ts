// "Did you mean" hints of modules.yaml problems (STYLE 4).
import t from 'tap'
import { didYouMean } from '../../../src/config/suggest.js'

t.test('a near miss suggests the closest candidate', async (t) => {
  t.equal(didYouMean('requried', ['required', 'unique', 'encrypted']), " ¿Quería decir 'required'?")
  t.equal(didYouMean('strng', ['string', 'text', 'integer']), " ¿Quería decir 'string'?")
  t.equal(didYouMean('Denuncia', ['denuncias', 'sanciones']), " ¿Quería decir 'denuncias'?", 'case-insensitive')
})

t.test('a word far from every candidate suggests nothing', async (t) => {
  t.equal(didYouMean('zzzzzz', ['required', 'unique']), '')
  t.equal(didYouMean('x', []), '')
})
