// Cheap, cross-process change detection for what the service caches (D20):
// every write of a module bumps that module's generation in the same transaction, and
// revocations bump their own. A generation is a row of `_sequences` (prefix `_gen:<key>`,
// year 0), so it is shared by every process and instance on the database. On PostgreSQL a
// record write's generation is bumped by the seal of its audit entry, right after the write
// commits and before it answers (D38), so the row is not held until the write commits: a
// reader that read the generation before the commit and cached under it sees the new one as
// soon as the seal commits; a crash before the seal is made good by the next seal or start.
//
// Reading generations costs one small read for all keys together. On SQLite even that is
// skipped in the common case: `PRAGMA data_version` (no table read) changes whenever
// another connection commits, and this process counts its own bumps; while neither moved,
// the generations read last are still the current ones. Dialects without such a signal
// (PostgreSQL) read them each time, which is still cheaper than the lookups it replaces.
import { sql } from 'kysely'
import type { Database, Db } from './database.js'
import { SYSTEM_TABLES } from './system-tables.js'
import { coalesced } from './coalesce.js'
import { generationMemo } from './generation-memo.js'
import { preparedQuery } from './prepared.js'

export interface ChangeWatch {
  /** Current generation of `key`; equal values mean no write of `key` in between. */
  generation(key: string): Promise<number>
  /** Call inside the write transaction that changes `key`'s data (or the seal that chains its entries, D38). */
  bump(trx: Db, key: string): Promise<void>
}

const prefixOf = (key: string) => `_gen:${key}`

const bumpQuery = preparedQuery<'prefix'>((db, param) => {
  const table = SYSTEM_TABLES.sequences
  return db
    .insertInto(table)
    .values({ prefix: param('prefix'), year: 0, value: 1 })
    .onConflict((oc) => oc.columns(['prefix', 'year']).doUpdateSet({ value: sql`${sql.ref(`${table}.value`)} + 1` }))
})
// Every generation at once: year 0 holds only them (record ids count by their year, D8). A
// request asks for two or three keys together (its token's revocations, its account, its
// module); on PostgreSQL each statement is a round trip, so one read answers them all.
const generationsQuery = preparedQuery<never>((db) =>
  db.selectFrom(SYSTEM_TABLES.sequences).select(['prefix', 'value']).where('year', '=', 0),
)

export function createChangeWatch(database: Database): ChangeWatch {
  const { db } = database
  const known = new Map<string, number>()
  let seenVersion: number | undefined
  let localBumps = 0
  let seenLocalBumps = 0
  /** Lookups of one synchronous run (one request's checks) share one look at the database. */
  let checkedThisRun = false
  const endRun = () => void (checkedThisRun = false)
  /** One read of every generation at a time: who asks meanwhile shares the next (a read begun after they asked). */
  const readAll = coalesced(async () => {
    const { rows } = await db.executeQuery(generationsQuery(db).bind({}))
    return new Map(rows.map((row) => [String(row['prefix']), Number(row['value'])]))
  })
  const read = async (key: string): Promise<number> => (await readAll()).get(prefixOf(key)) ?? 0

  /** Forgets what was read when anything may have changed since. */
  function expire(): void {
    if (checkedThisRun && localBumps === seenLocalBumps) return
    checkedThisRun = true
    queueMicrotask(endRun)
    const version = database.dataVersion?.()
    if (version === undefined || version !== seenVersion || localBumps !== seenLocalBumps) {
      known.clear()
      seenVersion = version
      seenLocalBumps = localBumps
    }
  }

  return {
    async generation(key) {
      expire()
      const cached = known.get(key)
      if (cached !== undefined) return cached
      const value = await read(key)
      // A bump that began while reading makes this value suspect: keep it for this call only.
      if (seenLocalBumps === localBumps) known.set(key, value)
      return value
    },
    async bump(trx, key) {
      localBumps += 1
      await trx.executeQuery(bumpQuery(trx).bind({ prefix: prefixOf(key) }))
      localBumps += 1
    },
  }
}

/**
 * Remembers answers for one generation of `key`: once a write of `key` commits anywhere
 * (any process), the next lookup sees a new generation and every older answer is dropped.
 */
export function generationCache<T>(
  changes: ChangeWatch,
  key: string,
): (id: string, load: () => Promise<T>) => Promise<T> {
  const memo = generationMemo<T>()
  return async (id, load) => memo(await changes.generation(key), id, load)
}
