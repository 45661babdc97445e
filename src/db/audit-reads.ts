// Reads of the audit trail: one record's history and the filtered trail (D25).
import { META } from '../compile/metadata.js'
import { recordNotFound } from '../errors.js'
import { auditEntryFromRow } from './audit-log.js'
import { auditConsultation } from './reveal-audit.js'
import { SYSTEM_TABLES } from './migrate/system-tables.js'
import { recordQuery } from './record-query.js'
import type { RecordStore, RecordStoreOptions } from './record-store.js'

export type AuditReads = Pick<RecordStore, 'history' | 'auditTrail'>

export function createAuditReads(options: RecordStoreOptions): AuditReads {
  const { db, dialect } = options.database
  return {
    async history(spec, id, { user, actor, request }) {
      // Deleted records included (D25), but only those in the reader's scope (issue #14).
      const exists = await recordQuery(db, spec, { includeDeleted: true, user, dialect })
        .select(META.id)
        .where(META.id, '=', id)
        .executeTakeFirst()
      if (exists === undefined) throw recordNotFound()
      const rows = await db
        .selectFrom(SYSTEM_TABLES.audit)
        .selectAll()
        .where('module', '=', spec.name)
        .where('record_id', '=', id)
        .orderBy('seq', 'asc')
        .execute()
      // Reading a record's history is a consultation too (issue #15); `_historial`: what was read.
      if (actor !== undefined && options.consultationLog !== false)
        await auditConsultation(
          options.readAudit,
          spec,
          [{ [META.id]: id, [META.version]: null }],
          { reveal: false, actor, user, ...(request === undefined ? {} : { request }) },
          {
            recordId: id,
            fields: ['_historial'],
          },
        )
      return rows.map(auditEntryFromRow)
    },

    async auditTrail(query) {
      let base = db.selectFrom(SYSTEM_TABLES.audit)
      for (const filter of query.filters) base = base.where(filter.column, '=', filter.value)
      const [rows, count] = await Promise.all([
        base.selectAll().orderBy('seq', 'asc').limit(query.limit).offset(query.offset).execute(),
        base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
      ])
      return { entries: rows.map(auditEntryFromRow), total: Number(count?.['n'] ?? 0) }
    },
  }
}
