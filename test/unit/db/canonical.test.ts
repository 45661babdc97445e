// canonicalJson writes an array of strings with one JSON.stringify (D18: a page's consultation
// entry hashes its ids). The text must be the one the element-by-element definition writes, for
// every value: otherwise chains written before the shortcut would no longer verify.
import fc from 'fast-check'
import t from 'tap'
import { canonicalJson } from '../../../src/db/canonical.js'

/** The definition without the shortcut: keys sorted at every depth, elements one by one. */
function elementByElement(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null)
  if (Array.isArray(value)) return `[${value.map(elementByElement).join(',')}]`
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${elementByElement(v)}`).join(',')}}`
}

/** Any UTF-16 code unit, lone surrogates included (`unit: 'binary'` makes well-formed strings only). */
const codeUnits = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) })

t.test('D18: arrays of strings are written as element by element', async (t) => {
  fc.assert(
    fc.property(fc.array(fc.string({ unit: 'binary' })), (ids) => canonicalJson(ids) === elementByElement(ids)),
    { numRuns: 500 },
  )
  fc.assert(
    fc.property(fc.array(codeUnits), (ids) => canonicalJson(ids) === elementByElement(ids)),
    { numRuns: 500 },
  )
  t.equal(canonicalJson(['\ud800', 'a\udfffb']), '["\\ud800","a\\udfffb"]', 'lone surrogates escaped alike')
  const withToJson = Object.assign(['a', 'b'], { toJSON: () => 'X' })
  t.equal(canonicalJson(withToJson), elementByElement(withToJson), 'an array with a toJSON of its own')
})

t.test('D18: any JSON value, and arrays with holes or other elements, as before', async (t) => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => canonicalJson(value) === elementByElement(value)),
    { numRuns: 500 },
  )
  fc.assert(
    fc.property(
      fc.sparseArray(fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.constant(undefined))),
      (values) => canonicalJson(values) === elementByElement(values),
    ),
    { numRuns: 500 },
  )
  t.equal(canonicalJson(['a', 1, 'b']), '["a",1,"b"]')
  t.equal(canonicalJson({ b: ['x', 'y'], a: [] }), '{"a":[],"b":["x","y"]}')
})
