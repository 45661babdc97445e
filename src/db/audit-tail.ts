// The record writes of the audit chain after a given seq: what a live feed streams and what a
// resume replays (issue #16 item 5). The chain's seq is the feed's event id.
import { auditEntryFromRow, RECORD_WRITE_ACTIONS, type AuditEntry } from './audit-log.js'
import type { Db } from './database.js'
import { SYSTEM_TABLES } from './migrate/system-tables.js'
import { preparedQuery } from './prepared.js'

const lastQuery = preparedQuery<never>((db) =>
  db.selectFrom(SYSTEM_TABLES.audit).select('seq').orderBy('seq', 'desc').limit(1),
)
const afterQuery = preparedQuery<'after' | 'limit'>((db, param) =>
  db
    .selectFrom(SYSTEM_TABLES.audit)
    .selectAll()
    .where('seq', '>', param('after'))
    .where('action', 'in', [...RECORD_WRITE_ACTIONS])
    .orderBy('seq', 'asc')
    .limit(param('limit') as unknown as number),
)

/** The seq of the newest entry; 0 for an empty chain. */
export async function lastAuditSeq(db: Db): Promise<number> {
  const row = (await db.executeQuery(lastQuery(db).bind({}))).rows[0]
  return row === undefined ? 0 : Number(row['seq'])
}

/** Up to `limit` record writes after `after`, oldest first. */
export async function recordWritesAfter(db: Db, after: number, limit: number): Promise<AuditEntry[]> {
  const rows = (await db.executeQuery(afterQuery(db).bind({ after, limit }))).rows
  return rows.map(auditEntryFromRow)
}
