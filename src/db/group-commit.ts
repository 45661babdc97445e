// Group commit of record writes on SQLite (D48): writes that arrive together share one
// transaction and so one WAL sync, the way a database batches its log flushes.
//
// SQLite has one writer and better-sqlite3 syncs the WAL inside COMMIT, on the event loop:
// with one transaction per write, ten creates in flight take ten syncs one after another.
// Here a write asks for its transaction and waits one turn of the event loop; every write that
// asked by then runs in the same transaction and one COMMIT ends them all. Each caller is
// answered only after that COMMIT (an acknowledged write is on disk, as before), a refused one
// too. A write that fails fails alone: nothing of it stays, and the others commit. If the COMMIT
// fails, or SQLite rolled the whole transaction back by itself (a full disk, an I/O error), every
// write of the group fails and none is kept. PostgreSQL runs each write in a transaction of its
// own: its connections commit side by side and it groups their log flushes itself.
//
// A write that may well be refused inside its transaction (an update's If-Match, its workflow)
// runs inside a savepoint of its own, so that it can be undone alone. One that is seldom refused
// there (a create: its checks ran before) runs without one (D49): a savepoint makes SQLite copy
// every page the write changes into its sub-journal, and makes the text index (FTS5) write its
// pending terms out as a segment of their own, a tenth of a create's time between them. Should such
// a write fail after all, the whole transaction is rolled back and the group runs again, every
// write in a savepoint of its own: it then fails alone as before, and the others commit.
import { CompiledQuery } from 'kysely'
import type { Database, Db } from './database.js'

/** Most writes one transaction holds: bounds how long the last of them waits for its answer. */
export const MAX_GROUP = 64

// Built once: a write's savepoint, in every group.
const SAVEPOINT = CompiledQuery.raw('savepoint member')
const RELEASE = CompiledQuery.raw('release member')
const ROLLBACK_TO = CompiledQuery.raw('rollback to member')

export interface GroupOptions {
  /**
   * Run without a savepoint of its own (D49): for writes that are seldom refused inside their
   * transaction. If it fails, its group runs again with a savepoint per write.
   */
  readonly withoutSavepoint?: boolean
}

interface Member {
  readonly work: (trx: Db) => Promise<unknown>
  readonly withoutSavepoint: boolean
  readonly resolve: (value: unknown) => void
  readonly reject: (error: unknown) => void
}

/**
 * What the writes of a group hand on to the next write of the same transaction (the audit
 * chain's tail, say), by key; emptied whenever a write is rolled back to its savepoint, and
 * gone with the transaction.
 */
const carried = new WeakMap<Db, Map<symbol, unknown>>()

/**
 * The values a write of a group (this transaction) may hand on to the next, or undefined outside
 * a group. What is kept here must be kept by every writer of the transaction.
 */
export const carriedInGroup = (trx: Db): Map<symbol, unknown> | undefined => carried.get(trx)

type Run = <T>(work: (trx: Db) => Promise<T>, options: GroupOptions) => Promise<T>

const groups = new WeakMap<Database, Run>()

/**
 * Runs `work` in a write transaction: on SQLite one shared with the record writes that ask
 * in the same turn of the event loop (each in a savepoint unless `options` says otherwise),
 * elsewhere one of its own.
 */
export function inWriteTransaction<T>(
  database: Database,
  work: (trx: Db) => Promise<T>,
  options: GroupOptions = {},
): Promise<T> {
  if (database.dialect !== 'sqlite') return database.db.transaction().execute(work)
  let run = groups.get(database)
  if (run === undefined) groups.set(database, (run = commitGroups(database.db)))
  return run(work, options)
}

function commitGroups(db: Db): Run {
  const waiting: Member[] = []
  let scheduled = false

  const schedule = () => {
    if (scheduled) return
    scheduled = true
    // One turn of the event loop: the requests already read from their sockets join.
    setImmediate(() => {
      scheduled = false
      const members = waiting.splice(0, MAX_GROUP)
      if (waiting.length > 0) schedule()
      void commit(db, members)
    })
  }

  return <T>(work: (trx: Db) => Promise<T>, options: GroupOptions) =>
    new Promise<T>((resolve, reject) => {
      waiting.push({
        work,
        withoutSavepoint: options.withoutSavepoint === true,
        resolve: resolve as (value: unknown) => void,
        reject,
      })
      schedule()
    })
}

/** Thrown when a write without a savepoint failed: its group is rolled back and runs again (D49). */
const RUN_AGAIN = new Error('the group runs again, a savepoint per write')

interface Outcome {
  readonly done: { readonly member: Member; readonly value: unknown }[]
  readonly failed: { readonly member: Member; readonly error: unknown }[]
}

/**
 * The members' writes in one transaction; every member answered once the transaction is over.
 * A failed write too: its error may rest on an earlier member's write (a value it took, a
 * version it made), which is only certain once committed. If the group did not commit, every
 * member gets the group's error, theirs included.
 */
async function commit(db: Db, members: readonly Member[]): Promise<void> {
  let outcome: Outcome
  try {
    try {
      outcome = await runGroup(db, members, false)
    } catch (error) {
      if (error !== RUN_AGAIN) throw error
      // Rolled back whole: nothing of the first run stays. Each write now in a savepoint of its own.
      outcome = await runGroup(db, members, true)
    }
  } catch (error) {
    // Nothing of the group was kept: every member, run or not, fails with the cause.
    for (const member of members) member.reject(error)
    return
  }
  for (const { member, error } of outcome.failed) member.reject(error)
  for (const { member, value } of outcome.done) member.resolve(value)
}

/**
 * One transaction over `members`, each in a savepoint of its own unless it asked for none and
 * `everyInSavepoint` is false. A failed write in a savepoint is undone alone; one without
 * throws RUN_AGAIN, which rolls the whole transaction back.
 */
async function runGroup(db: Db, members: readonly Member[], everyInSavepoint: boolean): Promise<Outcome> {
  const outcome: Outcome = { done: [], failed: [] }
  await db.transaction().execute(async (trx) => {
    carried.set(trx, new Map())
    for (const member of members) {
      const inSavepoint = everyInSavepoint || !member.withoutSavepoint
      if (inSavepoint) await trx.executeQuery(SAVEPOINT)
      let value: unknown
      try {
        value = await member.work(trx)
      } catch (error) {
        if (!inSavepoint) throw RUN_AGAIN
        outcome.failed.push({ member, error })
        await undo(trx, error)
        continue
      }
      if (inSavepoint) await trx.executeQuery(RELEASE)
      outcome.done.push({ member, value })
    }
  })
  return outcome
}

/**
 * Rolls the failed member back to its savepoint. If SQLite ended the whole transaction itself
 * (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM, SQLITE_BUSY), there is no savepoint left: the
 * member's error then ends the group, whose other writes are gone too.
 */
async function undo(trx: Db, error: unknown): Promise<void> {
  // What the undone write handed on is undone with it.
  carried.get(trx)?.clear()
  try {
    await trx.executeQuery(ROLLBACK_TO)
    await trx.executeQuery(RELEASE)
  } catch {
    throw error
  }
}
