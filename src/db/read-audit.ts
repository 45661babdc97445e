// Reads of decrypted personal data are audited too (Directive (EU) 2016/680, art. 25):
// entries are buffered and appended in batches, one transaction per flush, so a read
// costs a push to an array, not a write. Entries not yet flushed when the process is
// killed are lost (at most `maxDelayMs` of them); a clean stop flushes.
import { formatExactTimestamp } from '../compile/time.js'
import { appendAudit, type AuditEvent } from './audit-log.js'
import type { Database } from './database.js'

export interface ReadAuditLog {
  record(events: readonly AuditEvent[]): void
  flush(): Promise<void>
  close(): Promise<void>
}

export interface ReadAuditOptions {
  readonly database: Database
  readonly timezone: string
  readonly clock: () => Date
  readonly maxDelayMs?: number
  readonly maxBatch?: number
  readonly onError: (error: unknown) => void
}

export function createReadAuditLog(options: ReadAuditOptions): ReadAuditLog {
  const maxDelayMs = options.maxDelayMs ?? 1000
  const maxBatch = options.maxBatch ?? 1000
  let pending: AuditEvent[] = []
  let timer: NodeJS.Timeout | undefined
  let writing: Promise<void> = Promise.resolve()

  const flush = (): Promise<void> => {
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
    if (pending.length === 0) return writing
    const batch = pending
    pending = []
    const at = formatExactTimestamp(options.clock(), options.timezone)
    writing = writing
      .then(() => options.database.db.transaction().execute((trx) => appendAudit({ database: options.database, trx, events: batch, at })))
      .catch((error: unknown) => {
        pending = [...batch, ...pending] // kept for the next flush
        options.onError(error)
      })
    return writing
  }

  return {
    record(events) {
      if (events.length === 0) return
      pending.push(...events)
      if (pending.length >= maxBatch) void flush()
      else if (timer === undefined) {
        timer = setTimeout(() => void flush(), maxDelayMs)
        timer.unref()
      }
    },
    flush,
    async close() {
      await flush()
    },
  }
}
