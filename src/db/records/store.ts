// Every read and write of module records: transactions, ids, encryption, hashes, audit. The
// store is assembled from one file per concern of this folder: reads.ts (list, get), writes.ts
// (create, update, remove, each with its version), history-reads.ts (history, past versions),
// audit-reads.ts (trail) and session-events.ts (logins); its types are types.ts.
// Every query over a module's records starts in query.ts.
import { createAuditReads } from './audit-reads.js'
import { createHistoryReads } from './history-reads.js'
import { createRecordReads } from './reads.js'
import { createRecordWrites } from './writes.js'
import { createSessionEvents } from './session-events.js'
import type { RecordStore, RecordStoreOptions } from './types.js'

/** The store: its reads, writes, audit reads and session events, each in a file of its own. */
export function createRecordStore(options: RecordStoreOptions): RecordStore {
  return {
    ...createRecordReads(options),
    ...createRecordWrites(options),
    ...createAuditReads(options),
    ...createHistoryReads(options),
    ...createSessionEvents(options),
  }
}
