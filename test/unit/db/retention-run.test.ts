// D41: the motivo of an automatic expiry names the module's basis and longest keep, within the
// motivo's limit however long the basis; only block and erase modules with a longest keep expire.
import t from 'tap'
import type { ModuleSpec, RetentionSpec } from '../../../src/compile/types.js'
import { expiringModules, expiryMotivo } from '../../../src/db/retention/run.js'
import { MOTIVO_MAX_LENGTH } from '../../../src/errors.js'

const retention = (extra: Partial<RetentionSpec> = {}): RetentionSpec => ({
  basis: 'LO 7/2021, art. 8',
  fromText: '_created',
  from: { kind: 'created' },
  reviewEvery: { amount: 1, unit: 'y' },
  keepAtMost: { amount: 5, unit: 'y' },
  onExpiry: 'erase',
  ...extra,
})

t.test('D41: the automatic motivo', async (t) => {
  t.equal(
    expiryMotivo(retention(), 'suprimir'),
    'Supresión automática (records retention run, D41): cumplido el plazo máximo de conservación (keep_at_most 5y). Base: LO 7/2021, art. 8',
  )
  t.match(expiryMotivo(retention({ keepAtMost: { amount: 30, unit: 'd' } }), 'bloquear'), /^Bloqueo automático .*30d/)
  const long = expiryMotivo(retention({ basis: 'x'.repeat(2 * MOTIVO_MAX_LENGTH) }), 'suprimir')
  t.equal(long.length, MOTIVO_MAX_LENGTH, 'a long basis is cut to the limit')
  t.ok(long.endsWith('x…'))
})

t.test('D41: the modules whose on_expiry acts by itself', async (t) => {
  const module = (name: string, r: RetentionSpec | undefined) => ({ name, retention: r }) as unknown as ModuleSpec
  const modules = [
    module('erase', retention()),
    module('block', retention({ onExpiry: 'block' })),
    module('review', retention({ onExpiry: 'review' })),
    module('no-longest-keep', retention({ keepAtMost: undefined })),
    module('none', undefined),
  ]
  t.same(
    expiringModules(modules).map((m) => m.name),
    ['erase', 'block'],
  )
})
