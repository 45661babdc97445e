// The audit entry hash written out field by field hashes exactly the text the
// generic canonical JSON gives (D18): chains written before and after verify alike.
import fc from 'fast-check'
import t from 'tap'
import { hashAuditEntry } from '../../../src/db/audit/log.js'
import { canonicalJson, sha256Hex } from '../../../src/db/canonical.js'

const nullable = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null })
const EXPECTED_PAGE_HASH = '736296d0f065c330138d4d030aa213d229f704896fe5355943ae2f8814b5c9c7'

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
    // The request keys, hashed only when not null.
    address: nullable(fc.string()),
    request_id: nullable(fc.string()),
    motivo: nullable(fc.string({ unit: 'grapheme' })),
    recipient: nullable(fc.string()),
    record_ids: nullable(fc.array(fc.string())),
    criteria: nullable(fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer(), fc.array(fc.string())))),
  })
  const withoutNulls = (e: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(e).filter(
        ([k, v]) =>
          v !== null || !['address', 'request_id', 'motivo', 'recipient', 'record_ids', 'criteria'].includes(k),
      ),
    )
  fc.assert(
    fc.property(entry, (e) => hashAuditEntry(e) === sha256Hex(canonicalJson(withoutNulls(e)))),
    { numRuns: 500 },
  )
  t.pass('500 random entries hash alike')
})

t.test('D18: a consultation of a page hashes as it did before its ids were written at once', async (t) => {
  // The expected hash was computed by the code before canonicalJson's shortcut (commit 42fb088).
  const page = {
    seq: 12345,
    at: '2026-11-29 04:00:00.000',
    user_id: 'USR-1',
    action: 'consultar' as const,
    module: 'denuncias',
    record_id: null,
    version: null,
    record_hash: null,
    fields: ['denunciante_nombre', 'tipo', 'estado'],
    prev_hash: 'a'.repeat(64),
    address: '127.0.0.1',
    request_id: 'r-1',
    motivo: null,
    recipient: null,
    record_ids: Array.from({ length: 100 }, (_, k) => `DEN-2026-${String(k).padStart(5, '0')}`),
    criteria: { limit: 100, offset: 5 },
  }
  t.equal(hashAuditEntry(page), EXPECTED_PAGE_HASH)
})

t.test('an entry without the request keys hashes as before they existed', async (t) => {
  const old = {
    seq: 3,
    at: '2026-11-23 10:00:00.123',
    user_id: 'USR-2026-00001',
    action: 'consultar' as const,
    module: 'denuncias',
    record_id: 'DEN-2026-00001',
    version: 1,
    record_hash: null,
    fields: ['dni'],
    prev_hash: '0'.repeat(64),
  }
  const nulls = { address: null, request_id: null, motivo: null, recipient: null, record_ids: null, criteria: null }
  t.equal(hashAuditEntry({ ...old, ...nulls }), sha256Hex(canonicalJson(old)))
  t.not(hashAuditEntry({ ...old, ...nulls, motivo: 'x' }), hashAuditEntry({ ...old, ...nulls }))
})
