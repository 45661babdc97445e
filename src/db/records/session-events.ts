// Audit entries that belong to no record write: logins, logouts (D25).
import { formatExactTimestamp } from '../../compile/time.js'
import { busy } from '../../errors.js'
import { appendAudit } from '../audit/log.js'
import type { RecordStore, RecordStoreOptions } from './types.js'

export type SessionEvents = Pick<RecordStore, 'audit'>

export function createSessionEvents({ database, clock, timezone }: RecordStoreOptions): SessionEvents {
  return {
    async audit(events) {
      const now = clock()
      try {
        await database.db
          .transaction()
          .execute((trx) => appendAudit({ database, trx, events, at: formatExactTimestamp(now, timezone) }))
      } catch (error) {
        if (database.isBusy(error)) throw busy(error)
        throw error
      }
    },
  }
}
