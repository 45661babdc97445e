// Audit entries that belong to no record write: logins, logouts (D25).
import { formatExactTimestamp } from '../../compile/time.js'
import { busy } from '../../errors.js'
import { appendAudit, type AuditEvent } from '../audit/log.js'
import type { RecordStoreOptions } from './types.js'

/** Appends `events` to the audit chain in a transaction of their own. */
export async function audit(
  { database, clock, timezone }: RecordStoreOptions,
  events: readonly AuditEvent[],
): Promise<void> {
  const now = clock()
  try {
    await database.db
      .transaction()
      .execute((trx) => appendAudit({ database, trx, events, at: formatExactTimestamp(now, timezone) }))
  } catch (error) {
    if (database.isBusy(error)) throw busy(error)
    throw error
  }
}
