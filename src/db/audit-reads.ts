// Reads of the audit trail: the filtered trail (D25); one record's history is history-reads.ts.
import { auditEntryFromRow } from './audit-log.js'
import { SYSTEM_TABLES } from './migrate/system-tables.js'
import type { RecordStore, RecordStoreOptions } from './record-store.js'

export type AuditReads = Pick<RecordStore, 'auditTrail'>

export function createAuditReads({ database: { db } }: RecordStoreOptions): AuditReads {
  return {
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
