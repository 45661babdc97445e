// Every read and write of module records: transactions, ids, encryption, hashes, audit. The
// store is assembled from one file per concern of this folder: reads.ts (list, get), writes.ts
// (create, update, remove, each with its version), history-reads.ts (history, past versions),
// audit-reads.ts (trail) and session-events.ts (logins); its types are types.ts.
// Every query over a module's records starts in query.ts.
import { createAuditReads } from './audit-reads.js'
import { createHistoryReads } from './history-reads.js'
import * as reads from './reads.js'
import { createSessionEvents } from './session-events.js'
import type { RecordStore, RecordStoreOptions } from './types.js'
import * as writes from './writes.js'

/**
 * The store: each call goes to the function of its file, with what the store's reads or writes
 * share (their context: the options, caches and prepared queries of this store).
 */
export function createRecordStore(options: RecordStoreOptions): RecordStore {
  const reading = reads.readContext(options)
  const writing = writes.writeContext(options)
  return {
    list: (spec, query, read) => reads.list(reading, spec, query, read),
    get: (spec, id, read) => reads.get(reading, spec, id, read),
    visible: (spec, id, filters, read) => reads.visible(reading, spec, id, filters, read),
    visibleIds: (spec, filters, user, options) => reads.visibleIds(reading, spec, filters, user, options),
    expand: (spec, records, expansions, read) => reads.expand(reading, spec, records, expansions, read),
    integrityFailures: () => reads.integrityFailures(reading),
    create: (spec, values, write) => writes.create(writing, spec, values, write),
    createMany: (spec, values, bulk) => writes.createMany(writing, spec, values, bulk),
    update: (spec, id, changes, write) => writes.update(writing, spec, id, changes, write),
    remove: (spec, id, write) => writes.remove(writing, spec, id, write),
    ...createAuditReads(options),
    ...createHistoryReads(options),
    ...createSessionEvents(options),
  }
}
