// Every read and write of module records: transactions, ids, encryption, hashes, audit. The
// store is assembled from one file per concern of this folder: reads.ts (list, get), writes.ts
// (create, update, remove, each with its version), history-reads.ts (history, past versions),
// audit-reads.ts (trail) and session-events.ts (logins); its types are types.ts. Who may ask a
// list what it asks is list-access.ts's one decision.
// Every query over a module's records starts in query.ts.
import * as auditReads from './audit-reads.js'
import * as historyReads from './history-reads.js'
import { checkListAccess } from './list-access.js'
import * as reads from './reads.js'
import * as sessionEvents from './session-events.js'
import type { RecordStore, RecordStoreOptions } from './types.js'
import * as writes from './writes.js'

/**
 * The store: each call goes to the function of its file, with what the calls of that file share
 * (reads and writes: a context of the options and this store's caches and prepared queries;
 * the others: the options).
 */
export function createRecordStore(options: RecordStoreOptions): RecordStore {
  const reading = reads.readContext(options)
  const writing = writes.writeContext(options)
  return {
    list: (spec, query, read) => reads.list(reading, spec, query, read),
    checkList: (spec, query, read) => checkListAccess(spec, query, read),
    get: (spec, id, read) => reads.get(reading, spec, id, read),
    visible: (spec, id, filters, read) => reads.visible(reading, spec, id, filters, read),
    visibleIds: (spec, filters, user, limits) => reads.visibleIds(reading, spec, filters, user, limits),
    expand: (spec, records, expansions, read) => reads.expand(reading, spec, records, expansions, read),
    integrityFailures: () => reads.integrityFailures(reading),
    create: (spec, values, write) => writes.create(writing, spec, values, write),
    createMany: (spec, values, bulk) => writes.createMany(writing, spec, values, bulk),
    update: (spec, id, changes, write) => writes.update(writing, spec, id, changes, write),
    remove: (spec, id, write) => writes.remove(writing, spec, id, write),
    history: (spec, id, read) => historyReads.history(options, spec, id, read),
    getVersion: (spec, id, version, read) => historyReads.getVersion(options, spec, id, version, read),
    auditTrail: (query) => auditReads.auditTrail(options, query),
    audit: (events) => sessionEvents.audit(options, events),
  }
}
