// F2 (D25): the one rule of what a record's history shows to whom.
import t from 'tap'
import type { AuditAction, AuditEntry } from '../../../src/db/audit/log.js'
import { entriesShownTo } from '../../../src/db/audit/history-visibility.js'

const entry = (seq: number, action: AuditAction, request: Partial<AuditEntry> = {}): AuditEntry => ({
  seq,
  at: '2026-11-26 10:00:00.000',
  user_id: 'USR-2026-00001',
  action,
  module: 'denuncias',
  record_id: 'DEN-2026-00001',
  version: 1,
  record_hash: 'h',
  fields: ['tipo'],
  prev_hash: 'p',
  hash: 'x',
  address: null,
  request_id: null,
  motivo: null,
  recipient: null,
  record_ids: null,
  criteria: null,
  ...request,
})

const asked = { address: '10.0.0.7', request_id: 'req-1', motivo: 'Asuntos internos 41/2026' }
const entries = [
  entry(1, 'crear', asked),
  entry(2, 'consultar', asked),
  entry(3, 'comunicar', { ...asked, recipient: 'Juzgado nº 2' }),
  entry(4, 'editar'),
  entry(5, 'integridad'),
  entry(6, 'migrar'),
  entry(7, 'recifrar'),
  entry(8, 'eliminar'),
]

t.test('F2: an auditor sees every entry as stored', async (t) => {
  t.same(entriesShownTo(entries, true), entries)
})

t.test('F2: anyone else sees the changes only, as the chain columns', async (t) => {
  const shown = entriesShownTo(entries, false)
  t.same(
    shown.map((e) => e.seq),
    [1, 4, 6, 7, 8],
  )
  t.same(shown[0], {
    seq: 1,
    at: '2026-11-26 10:00:00.000',
    user_id: 'USR-2026-00001',
    action: 'crear',
    module: 'denuncias',
    record_id: 'DEN-2026-00001',
    version: 1,
    record_hash: 'h',
    fields: ['tipo'],
    prev_hash: 'p',
    hash: 'x',
  })
})
