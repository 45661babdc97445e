// The record writes of the audit chain after a given seq: what a live feed streams and what a
// resume replays. The chain's seq is the feed's event id.
import { AUDIT_CHANNEL, auditEntryFromRow, RECORD_WRITE_ACTIONS, type AuditEntry } from './log.js'
import type { Database, Db } from '../database.js'
import { SYSTEM_TABLES } from '../system-tables.js'
import { preparedQuery } from '../prepared.js'

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

/** The audit tail of one database as the live feed (http/) sees it: its code stays in db/. */
export interface AuditTail {
  /** The seq of the newest entry; 0 for an empty chain. */
  lastSeq(): Promise<number>
  /** Up to `limit` record writes after `after`, oldest first. */
  writesAfter(after: number, limit: number): Promise<AuditEntry[]>
  /** Calls `wake` on every commit of any instance (PostgreSQL NOTIFY); undefined where the dialect has none. */
  readonly listen?: (wake: () => void) => Promise<() => Promise<void>>
  /** Changes whenever another connection commits (SQLite); undefined where the dialect has no such signal. */
  readonly dataVersion?: () => number
}

export function createAuditTail(database: Database): AuditTail {
  const { listen, dataVersion } = database
  return {
    lastSeq: () => lastAuditSeq(database.db),
    writesAfter: (after, limit) => recordWritesAfter(database.db, after, limit),
    ...(listen === undefined ? {} : { listen: (wake) => listen.call(database, AUDIT_CHANNEL, wake) }),
    ...(dataVersion === undefined ? {} : { dataVersion: () => dataVersion.call(database) }),
  }
}
