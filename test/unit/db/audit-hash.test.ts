// The audit entry hash written out field by field (issue #7) hashes exactly the text the
// generic canonical JSON gives (D18): chains written before and after verify alike.
import fc from 'fast-check'
import t from 'tap'
import { hashAuditEntry } from '../../../src/db/audit-log.js'
import { canonicalJson, sha256Hex } from '../../../src/db/canonical.js'

const nullable = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null })

t.test('D18: hashAuditEntry equals sha256 of canonicalJson for any entry', async (t) => {
  const entry = fc.record({
    seq: fc.nat(),
    at: fc.string(),
    user_id: nullable(fc.string()),
    action: fc.constantFrom(
      'crear',
      'editar',
      'eliminar',
      'login',
      'login_fallido',
      'logout',
      'consultar',
      'recifrar' as const,
    ),
    module: nullable(fc.string()),
    record_id: nullable(fc.string()),
    version: nullable(fc.integer()),
    record_hash: nullable(fc.string({ unit: 'grapheme' })),
    fields: fc.array(fc.string({ unit: 'binary' })),
    prev_hash: fc.string({ unit: 'grapheme' }),
  })
  fc.assert(
    fc.property(entry, (e) => hashAuditEntry(e) === sha256Hex(canonicalJson(e))),
    { numRuns: 500 },
  )
  t.pass('500 random entries hash alike')
})
