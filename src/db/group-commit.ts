// Group commit of record writes on SQLite (D48): writes that arrive together share one
// transaction and so one WAL sync, the way a database batches its log flushes.
//
// SQLite has one writer and better-sqlite3 syncs the WAL inside COMMIT, on the event loop:
// with one transaction per write, ten creates in flight take ten syncs one after another.
// Here a write asks for its transaction and waits one turn of the event loop; every write that
// asked by then runs in the same transaction, each inside a savepoint of its own, and one
// COMMIT ends them all. Each caller is answered only after that COMMIT (an acknowledged write
// is on disk, as before), a refused one too. A write that fails is rolled back to its savepoint
// and fails alone: nothing of it stays, and the others commit. If the COMMIT fails, or SQLite rolled the whole
// transaction back by itself (a full disk, an I/O error), every write of the group fails and
// none is kept. PostgreSQL runs each write in a transaction of its own: its connections commit
// side by side and it groups their log flushes itself.
import { CompiledQuery } from 'kysely'
import type { Database, Db } from './database.js'

/** Most writes one transaction holds: bounds how long the last of them waits for its answer. */
export const MAX_GROUP = 64

// Built once: a savepoint per write, in every group.
const SAVEPOINT = CompiledQuery.raw('savepoint member')
const RELEASE = CompiledQuery.raw('release member')
const ROLLBACK_TO = CompiledQuery.raw('rollback to member')

interface Member {
  readonly work: (trx: Db) => Promise<unknown>
  readonly resolve: (value: unknown) => void
  readonly reject: (error: unknown) => void
}

type Run = <T>(work: (trx: Db) => Promise<T>) => Promise<T>

const groups = new WeakMap<Database, Run>()

/**
 * Runs `work` in a write transaction: on SQLite one shared with the record writes that ask
 * in the same turn of the event loop (each in a savepoint), elsewhere one of its own.
 */
export function inWriteTransaction<T>(database: Database, work: (trx: Db) => Promise<T>): Promise<T> {
  if (database.dialect !== 'sqlite') return database.db.transaction().execute(work)
  let run = groups.get(database)
  if (run === undefined) groups.set(database, (run = commitGroups(database.db)))
  return run(work)
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

  return <T>(work: (trx: Db) => Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      waiting.push({ work, resolve: resolve as (value: unknown) => void, reject })
      schedule()
    })
}

/**
 * The members' writes in one transaction; every member answered once the transaction is over.
 * A failed write too: its error may rest on an earlier member's write (a value it took, a
 * version it made), which is only certain once committed. If the group did not commit, every
 * member gets the group's error, theirs included.
 */
async function commit(db: Db, members: readonly Member[]): Promise<void> {
  const done: { readonly member: Member; readonly value: unknown }[] = []
  const failed: { readonly member: Member; readonly error: unknown }[] = []
  try {
    await db.transaction().execute(async (trx) => {
      for (const member of members) {
        await trx.executeQuery(SAVEPOINT)
        let value: unknown
        try {
          value = await member.work(trx)
        } catch (error) {
          failed.push({ member, error })
          await undo(trx, error)
          continue
        }
        await trx.executeQuery(RELEASE)
        done.push({ member, value })
      }
    })
  } catch (error) {
    // Nothing of the group was kept: every member, run or not, fails with the cause.
    for (const member of members) member.reject(error)
    return
  }
  for (const { member, error } of failed) member.reject(error)
  for (const { member, value } of done) member.resolve(value)
}

/**
 * Rolls the failed member back to its savepoint. If SQLite ended the whole transaction itself
 * (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM, SQLITE_BUSY), there is no savepoint left: the
 * member's error then ends the group, whose other writes are gone too.
 */
async function undo(trx: Db, error: unknown): Promise<void> {
  try {
    await trx.executeQuery(ROLLBACK_TO)
    await trx.executeQuery(RELEASE)
  } catch {
    throw error
  }
}
