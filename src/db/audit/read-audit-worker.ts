// The read audit's writer thread for an embedded SQLite file: batches of
// `consultar` entries are hashed into the chain and inserted here, on a connection of this
// thread, so a read costs the event loop an array push, not a share of the flush. The
// chain stays one: this connection appends under SQLite's write lock like every writer.
import { parentPort, workerData } from 'node:worker_threads'
import { appendAudit, type AuditEvent } from './log.js'
import { createSqliteDatabase } from '../dialects/sqlite.js'
import { faultCode } from './read-audit-faults.js'

export interface WorkerRequest {
  readonly id: number
  readonly events: readonly AuditEvent[]
  readonly at: string
}

export interface WorkerReply {
  readonly id: number
  /** Undefined when the batch is committed; else why it was not. */
  readonly error?: string
  /** The error's code (SQLITE_FULL...) and name (TypeError...): what read-audit-faults.ts judges by. */
  readonly code?: string
  readonly name?: string
}

export interface WorkerSetup {
  readonly file: string
  readonly busyTimeoutMs?: number
}

const port = parentPort
if (port === null) throw new Error('read-audit-worker runs as a worker thread')
const setup = workerData as WorkerSetup
const database = createSqliteDatabase({
  file: setup.file,
  ...(setup.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: setup.busyTimeoutMs }),
  // It appends: the pages it wrote last and the paths down its indexes are all it reads again.
  cacheKiB: 2048,
})

port.on('message', (request: WorkerRequest) => {
  database.db
    .transaction()
    .execute((trx) => appendAudit({ database, trx, events: request.events, at: request.at }))
    .then(() => port.postMessage({ id: request.id } satisfies WorkerReply))
    .catch((error: unknown) =>
      port.postMessage({
        id: request.id,
        error: error instanceof Error ? error.message : String(error),
        code: faultCode(error),
        name: error instanceof Error ? error.name : 'Error',
      } satisfies WorkerReply),
    )
})
