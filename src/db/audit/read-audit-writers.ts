// The writers of the consultation log's batches: in this thread, or in a worker thread
// with its own connection on an embedded SQLite file. A failed write rejects with the database's
// code (SQLITE_FULL, a SQLSTATE...), which read-audit-faults.ts judges.
import { Worker } from 'node:worker_threads'
import { appendAudit, type AuditEvent } from './log.js'
import type { Database } from '../database.js'
import type { WorkerReply, WorkerRequest, WorkerSetup } from './read-audit-worker.js'

export type Writer = { write(events: readonly AuditEvent[], at: string): Promise<void>; close(): Promise<void> }

export function inProcessWriter(database: Database): Writer {
  return {
    write: (events, at) => database.db.transaction().execute((trx) => appendAudit({ database, trx, events, at })),
    close: async () => undefined,
  }
}

/**
 * The worker's module beside this one: .ts when the tests run the sources, .js from dist. From
 * dist/src/app/serve.bundle.cjs (scripts/bundle.mjs), where import.meta.url is the bundle's, the
 * worker's own bundle, which the same build writes first, in `../db/audit/`.
 */
const workerUrl = import.meta.url.endsWith('.cjs')
  ? new URL('../db/audit/read-audit-worker.bundle.mjs', import.meta.url)
  : new URL(`./read-audit-worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url)

/**
 * The writer thread's module and the node options it starts with. By default the module beside
 * this one, with the process's own options; the tests run the compiled module without their
 * loaders (test/helpers/api.ts), which cost each thread about 2 s of CPU under tap.
 */
export interface WorkerScript {
  readonly url: URL
  readonly execArgv?: readonly string[]
}

/**
 * Batches go to a worker thread started on the first flush (a process that never reveals a
 * value never starts one). Should the thread fail, batches are written from here again.
 */
export function workerWriter(setup: WorkerSetup, fallback: Writer, script: WorkerScript = { url: workerUrl }): Writer {
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
    const started = new Worker(script.url, {
      workerData: setup,
      ...(script.execArgv === undefined ? {} : { execArgv: [...script.execArgv] }),
      resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 64 },
    })
    started.unref() // never what keeps a process alive; close() ends it
    started.on('message', (reply: WorkerReply) => {
      const pending = waiting.get(reply.id)
      waiting.delete(reply.id)
      if (reply.error === undefined) pending?.resolve()
      else
        pending?.reject(
          Object.assign(new Error(`auditoría de lecturas: ${reply.error}`), {
            code: reply.code,
            name: reply.name ?? 'Error',
          }),
        )
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
