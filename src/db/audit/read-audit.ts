// Consultations of personal data are audited too (Directive (EU) 2016/680, art. 25:
// one entry per request): entries are buffered and appended in batches, one transaction per
// flush, so a read costs a push to an array, not a write. Entries not yet flushed when the
// process is killed are lost (at most `maxDelayMs`, 1 s, of them); a clean stop flushes. The backlog is
// bounded: past `maxBacklog` entries recorded and not yet written, a revealing read waits
// for the writer (reads slow down; entries are never dropped, memory does not grow).
// On an embedded SQLite file the batches are written by a worker thread with its own
// connection (read-audit-worker.ts): hashing and inserting them no longer takes turns with
// requests on the event loop. PostgreSQL writes them from here: its I/O is
// asynchronous already. An entry the database refuses is set apart and reported, never retried in
// front of the others; a writer that cannot write keeps every entry, retries, and says so in
// `status()` for /health (F1, F12).
import { formatExactTimestamp } from '../../compile/time.js'
import { consultationLogFull } from '../../errors.js'
import type { AuditEvent } from './log.js'
import type { Database } from '../database.js'
import { faultCode } from './read-audit-faults.js'
import { writeIsolating } from './read-audit-isolate.js'
import { inProcessWriter, workerWriter, type WorkerScript } from './read-audit-writers.js'

/** What /health and a stop tell of the consultation log (F1, F12). */
export interface ReadAuditStatus {
  /** Entries recorded and not yet written. */
  readonly unwritten: number
  /** Entries the database refused since the start: reported one by one, never stored. */
  readonly refused: number
  /** While the writer cannot write: since when (ISO time) and the last error's code. */
  readonly failing?: { readonly since: string; readonly code: string }
}

/** What the log of a refused entry may say: who and what, never the motivo, ids or criteria. */
export interface RefusedEntry {
  readonly requestId: string | null
  readonly userId: string | null
  readonly action: string
  readonly module: string | null
  readonly at: string | null
  /** The database's code (a SQLSTATE, SQLITE_CONSTRAINT_NOTNULL...): its message may quote the data. */
  readonly code: string
}

export interface ReadAuditLog {
  /**
   * Undefined, or a promise to await when the backlog is full: settled once the writer caught up.
   * Throws 503 instead while the writer cannot write and the backlog is full (F1): a read that
   * cannot be logged is not served. `always` records anyway (an answer to a committed write).
   */
  record(events: readonly AuditEvent[], always?: boolean): Promise<void> | undefined
  flush(): Promise<void>
  /** Entries recorded and not yet written: after `close`, the ones that could not be written. */
  unwritten(): number
  status(): ReadAuditStatus
  close(): Promise<void>
}

export interface ReadAuditOptions {
  readonly database: Database
  readonly timezone: string
  readonly clock: () => Date
  readonly maxDelayMs?: number
  readonly maxBatch?: number
  /** Entries recorded and not yet written past which `record` asks the read to wait. */
  readonly maxBacklog?: number
  /** The writer cannot write now: the first failure, then at most one a minute while it lasts. */
  readonly onError: (error: unknown) => void
  /** An entry the database refused (F1): it is counted and set apart. */
  readonly onRefused?: (entry: RefusedEntry) => void
  /** Write batches from a worker thread (SQLite files only); default: where the dialect allows. */
  readonly worker?: boolean
  /** The worker's module and node options (read-audit-writers.ts); only the tests pass one. */
  readonly workerScript?: WorkerScript
}

/**
 * What an entry weighs in batches and backlog: 1, plus 1 per 64 ids it lists. A consultation
 * of a 1000-record page (~20 KB of ids) weighs 16, so a batch (1000) stays near 1-2 MB and the
 * writer thread's small heap holds it.
 */
const weight = (event: AuditEvent): number => 1 + Math.floor((event.recordIds?.length ?? 0) / 64)

export function createReadAuditLog(options: ReadAuditOptions): ReadAuditLog {
  const maxDelayMs = options.maxDelayMs ?? 1000
  const maxBatch = options.maxBatch ?? 1000
  const maxBacklog = options.maxBacklog ?? 10 * maxBatch
  let pending: AuditEvent[] = []
  let pendingWeight = 0
  /** Weight of the entries recorded and not yet written (pending or in a batch being written). */
  let backlog = 0
  /** Entries recorded and not yet written. */
  let unwritten = 0
  let waiting: (() => void)[] = []
  const release = () => {
    const released = waiting
    waiting = []
    for (const resolve of released) resolve()
  }
  let timer: NodeJS.Timeout | undefined
  let writing: Promise<void> = Promise.resolve()
  const file =
    options.database.dialect === 'sqlite' && options.database.location !== ':memory:'
      ? options.database.location
      : undefined
  const writer =
    options.worker !== false && file !== undefined
      ? workerWriter({ file }, inProcessWriter(options.database), options.workerScript)
      : inProcessWriter(options.database)

  let refused = 0
  let failing: { since: string; code: string } | undefined
  let lastReport = 0
  const retryLater = () => {
    timer ??= setTimeout(() => void flush(), maxDelayMs)
    timer.unref()
  }
  const report = (event: AuditEvent, error: unknown) =>
    options.onRefused?.({
      requestId: event.requestId ?? null,
      userId: event.userId,
      action: event.action,
      module: event.module,
      at: event.at ?? null,
      code: faultCode(error) || (error instanceof Error ? error.name : 'Error'),
    })

  const flush = (): Promise<void> => {
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
    if (pending.length === 0) return writing
    const batch = pending
    const batchWeight = pendingWeight
    pending = []
    pendingWeight = 0
    const at = formatExactTimestamp(options.clock(), options.timezone)
    writing = writing
      .then(() => writeIsolating((events) => writer.write(events, at), batch))
      .then((result) => {
        const keptWeight = result.kept.reduce((sum, event) => sum + weight(event), 0)
        backlog -= batchWeight - keptWeight
        unwritten -= batch.length - result.kept.length
        refused += result.refused.length
        for (const { event, error } of result.refused) report(event, error)
        if (result.writerError === undefined) {
          failing = undefined
          if (backlog <= maxBacklog) release()
          return
        }
        pending = [...result.kept, ...pending] // kept, in order, for the next flush
        pendingWeight += keptWeight
        const code = faultCode(result.writerError) || 'desconocido'
        if (failing === undefined || Date.now() - lastReport >= 60_000) {
          lastReport = Date.now()
          options.onError(result.writerError)
        }
        failing ??= { since: new Date().toISOString(), code }
        failing = { since: failing.since, code }
        retryLater()
        release() // reads go on while the audit cannot be written: logged, and /health answers 503
      })
    return writing
  }

  return {
    record(events, always = false) {
      if (events.length === 0) return undefined
      // Fail closed (F1, D29): past the backlog, while nothing can be written, memory stops
      // growing and the read is refused; the failure is on /health and in the log already.
      if (failing !== undefined && backlog >= maxBacklog && !always)
        throw consultationLogFull(unwritten, failing.since, failing.code)
      // Each entry keeps the time of its request (ms), not of the flush that writes it.
      const at = formatExactTimestamp(options.clock(), options.timezone)
      for (const event of events) {
        const stamped = event.at === undefined ? { ...event, at } : event
        pending.push(stamped)
        const size = weight(stamped)
        pendingWeight += size
        backlog += size
      }
      unwritten += events.length
      // While the writer fails, the retry timer flushes: not every read.
      if (pendingWeight >= maxBatch && failing === undefined) void flush()
      else if (timer === undefined) {
        timer = setTimeout(() => void flush(), maxDelayMs)
        timer.unref()
      }
      return backlog <= maxBacklog ? undefined : new Promise<void>((resolve) => waiting.push(resolve))
    },
    flush,
    unwritten: () => unwritten,
    status: () => ({ unwritten, refused, ...(failing === undefined ? {} : { failing }) }),
    async close() {
      await flush()
      await writer.close()
    },
  }
}
