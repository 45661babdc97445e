// Consultations of personal data are audited too (Directive (EU) 2016/680, art. 25; issue #15:
// one entry per request): entries are buffered and appended in batches, one transaction per
// flush, so a read costs a push to an array, not a write. Entries not yet flushed when the
// process is killed are lost (at most `maxDelayMs`, 1 s, of them); a clean stop flushes. The backlog is
// bounded: past `maxBacklog` entries recorded and not yet written, a revealing read waits
// for the writer (reads slow down; entries are never dropped, memory does not grow).
// On an embedded SQLite file the batches are written by a worker thread with its own
// connection (read-audit-worker.ts): hashing and inserting them no longer takes turns with
// requests on the event loop (issue #7). PostgreSQL writes them from here: its I/O is
// asynchronous already.
import { Worker } from 'node:worker_threads'
import { formatExactTimestamp } from '../compile/time.js'
import { appendAudit, type AuditEvent } from './audit-log.js'
import type { Database } from './database.js'
import type { WorkerReply, WorkerRequest, WorkerSetup } from './read-audit-worker.js'

export interface ReadAuditLog {
  /** Undefined, or a promise to await when the backlog is full: settled once the writer caught up. */
  record(events: readonly AuditEvent[]): Promise<void> | undefined
  flush(): Promise<void>
  /** Entries recorded and not yet written: after `close`, the ones that could not be written. */
  unwritten(): number
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
  readonly onError: (error: unknown) => void
  /** Write batches from a worker thread (SQLite files only); default: where the dialect allows. */
  readonly worker?: boolean
}

type Writer = { write(events: readonly AuditEvent[], at: string): Promise<void>; close(): Promise<void> }

function inProcessWriter(database: Database): Writer {
  return {
    write: (events, at) => database.db.transaction().execute((trx) => appendAudit({ database, trx, events, at })),
    close: async () => undefined,
  }
}

/**
 * The worker's module beside this one: .ts when the tests run the sources, .js from dist. Written
 * as `../db/` so that it resolves the same from dist/src/app/serve.bundle.cjs (scripts/bundle.mjs).
 */
const workerUrl = new URL(`../db/read-audit-worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url)

/**
 * Batches go to a worker thread started on the first flush (a process that never reveals a
 * value never starts one). Should the thread fail, batches are written from here again.
 */
function workerWriter(setup: WorkerSetup, fallback: Writer): Writer {
  let worker: Worker | undefined
  let failed = false
  const waiting = new Map<number, { resolve: () => void; reject: (error: Error) => void }>()
  let nextId = 0
  const fail = (error: Error) => {
    failed = true
    for (const { reject } of waiting.values()) reject(error)
    waiting.clear()
  }
  const start = (): Worker => {
    // Small heaps: the thread holds one batch at a time. Should it run out, it exits and the
    // batches are written from the main thread again (fail below).
    const started = new Worker(workerUrl, {
      workerData: setup,
      resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 64 },
    })
    started.unref() // never what keeps a process alive; close() ends it
    started.on('message', (reply: WorkerReply) => {
      const pending = waiting.get(reply.id)
      waiting.delete(reply.id)
      if (reply.error === undefined) pending?.resolve()
      else pending?.reject(new Error(`auditoría de lecturas: ${reply.error}`))
    })
    started.on('error', fail)
    started.on('exit', (code) => fail(new Error(`auditoría de lecturas: el hilo de escritura terminó (${code})`)))
    return started
  }
  return {
    write(events, at) {
      if (failed) return fallback.write(events, at)
      const thread = (worker ??= start())
      const id = ++nextId
      return new Promise<void>((resolve, reject) => {
        waiting.set(id, { resolve, reject })
        thread.postMessage({ id, events, at } satisfies WorkerRequest)
      })
    },
    async close() {
      if (worker === undefined) return
      worker.removeAllListeners('exit')
      await worker.terminate()
    },
  }
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
      ? workerWriter({ file }, inProcessWriter(options.database))
      : inProcessWriter(options.database)

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
      .then(() => writer.write(batch, at))
      .then(
        () => {
          backlog -= batchWeight
          unwritten -= batch.length
          if (backlog <= maxBacklog) release()
        },
        (error: unknown) => {
          pending = [...batch, ...pending] // kept for the next flush
          pendingWeight += batchWeight
          options.onError(error)
          release() // reads go on (as with no backlog) while the audit cannot be written; logged
        },
      )
    return writing
  }

  return {
    record(events) {
      if (events.length === 0) return undefined
      // Each entry keeps the time of its request (ms), not of the flush that writes it (issue #15).
      const at = formatExactTimestamp(options.clock(), options.timezone)
      for (const event of events) {
        const stamped = event.at === undefined ? { ...event, at } : event
        pending.push(stamped)
        const size = weight(stamped)
        pendingWeight += size
        backlog += size
      }
      unwritten += events.length
      if (pendingWeight >= maxBatch) void flush()
      else if (timer === undefined) {
        timer = setTimeout(() => void flush(), maxDelayMs)
        timer.unref()
      }
      return backlog <= maxBacklog ? undefined : new Promise<void>((resolve) => waiting.push(resolve))
    },
    flush,
    unwritten: () => unwritten,
    async close() {
      await flush()
      await writer.close()
    },
  }
}
