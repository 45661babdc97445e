// A read with `fields=` logs as consulted only the fields it returns; an
// encrypted field not asked for is neither decrypted nor named.
import t from 'tap'
import type { AuditEvent } from '../../../src/db/audit/log.js'
import type { ReadAuditLog } from '../../../src/db/audit/read-audit.js'
import { auditConsultation } from '../../../src/db/records/reveal-audit.js'
import { moduleOf, shippedService } from '../support/config.js'

const denuncias = moduleOf(shippedService(), 'denuncias')
const row = { _id: 'DEN-2026-00001', _version: 1, denunciante_dni: 'v1.cifrado', denunciante_telefono: 'v1.cifrado' }

/** The read-audit log's interface, keeping what it is given. */
function collecting(): { log: ReadAuditLog; events: AuditEvent[] } {
  const events: AuditEvent[] = []
  const log: ReadAuditLog = {
    record: (batch) => void events.push(...batch),
    flush: async () => undefined,
    unwritten: () => 0,
    status: () => ({ unwritten: 0, refused: 0 }),
    close: async () => undefined,
  }
  return { log, events }
}

t.test('fields= names only the fields returned in the consultation entry', async (t) => {
  const read = { reveal: true, actor: 'USR-2026-00001', user: null }
  const none = collecting()
  await auditConsultation(none.log, denuncias, [row], { ...read, fields: new Set(['tipo', 'estado']) })
  t.same(
    none.events.map((e) => e.fields),
    [['tipo', 'estado']],
    'denuncias hold personal data: one entry, naming no encrypted field',
  )
  const one = collecting()
  await auditConsultation(one.log, denuncias, [row], { ...read, fields: new Set(['denunciante_dni']) })
  t.same(
    one.events.map((e) => e.fields),
    [['denunciante_dni']],
  )
  const all = collecting()
  await auditConsultation(all.log, denuncias, [row], read)
  t.ok((all.events[0]?.fields ?? []).includes('denunciante_telefono'), 'without fields=, every encrypted field held')
})
