// Issue #16 item 3: a read with `fields=` logs as consulted only the encrypted fields it returns.
import t from 'tap'
import type { AuditEvent } from '../../../src/db/audit-log.js'
import type { ReadAuditLog } from '../../../src/db/read-audit.js'
import { auditReveal } from '../../../src/db/reveal-audit.js'
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
    close: async () => undefined,
  }
  return { log, events }
}

t.test('#16: fields= without encrypted fields logs no consultation; with one, names only it', async (t) => {
  const read = { reveal: true, actor: 'USR-2026-00001', user: null }
  const none = collecting()
  await auditReveal(none.log, denuncias, [row], { ...read, fields: new Set(['tipo', 'estado']) })
  t.same(none.events, [], 'no encrypted field returned: nothing revealed')
  const one = collecting()
  await auditReveal(one.log, denuncias, [row], { ...read, fields: new Set(['denunciante_dni']) })
  t.same(
    one.events.map((e) => e.fields),
    [['denunciante_dni']],
  )
  const all = collecting()
  await auditReveal(all.log, denuncias, [row], read)
  t.ok((all.events[0]?.fields ?? []).includes('denunciante_telefono'), 'without fields=, every encrypted field held')
})
