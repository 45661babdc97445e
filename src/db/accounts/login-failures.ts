// Failed-login counts shared by every instance and kept across restarts:
// in the database, or in Redis when REDIS_URL is set (login-failures-redis.ts). Keys are hashes
// made by the caller, so neither store holds a username or an address in clear.
import { sql } from 'kysely'
import type { Database } from '../database.js'
import { SYSTEM_TABLES } from '../system-tables.js'

export interface FailureCount {
  readonly failures: number
  /** Epoch milliseconds of the last failure; 0 when none. */
  readonly lastAt: number
}

export const NO_FAILURES: FailureCount = { failures: 0, lastAt: 0 }

export interface LoginFailureStore {
  /** The counts of `keys`, in order; a count whose last failure is older than `keepMs` is none. */
  read(keys: readonly string[], now: number, keepMs: number): Promise<FailureCount[]>
  /** One more failure on each key (a forgotten count starts over at 1); the new counts. */
  record(keys: readonly string[], now: number, keepMs: number): Promise<FailureCount[]>
  clear(key: string): Promise<void>
}

const table = SYSTEM_TABLES.loginFailures

export function createLoginFailureStore(database: Database): LoginFailureStore {
  const { db } = database
  let nextPurge = 0
  type Stored = { failures: unknown; last_at: unknown } | undefined
  const toCount = (row: Stored, now: number, keepMs: number): FailureCount =>
    row === undefined || Number(row.last_at) < now - keepMs
      ? NO_FAILURES
      : { failures: Number(row.failures), lastAt: Number(row.last_at) }

  return {
    async read(keys, now, keepMs) {
      const rows = await db
        .selectFrom(table)
        .select(['key', 'failures', 'last_at'])
        .where('key', 'in', [...keys])
        .execute()
      return keys.map((key) => toCount(rows.find((r) => r['key'] === key) as never, now, keepMs))
    },
    async record(keys, now, keepMs) {
      const counts: FailureCount[] = []
      const stale = now - keepMs
      for (const key of keys) {
        const row = await db
          .insertInto(table)
          .values({ key, failures: 1, last_at: now })
          .onConflict((oc) =>
            oc.column('key').doUpdateSet({
              failures: sql`case when ${sql.ref(`${table}.last_at`)} < ${stale} then 1
              else ${sql.ref(`${table}.failures`)} + 1 end`,
              last_at: now,
            }),
          )
          .returning(['failures', 'last_at'])
          .executeTakeFirstOrThrow()
        counts.push({ failures: Number(row['failures']), lastAt: Number(row['last_at']) })
      }
      // Forgotten counts go at most once a minute per process: the table stays attack-sized.
      if (now >= nextPurge) {
        nextPurge = now + 60_000
        await db.deleteFrom(table).where('last_at', '<', stale).execute()
      }
      return counts
    },
    async clear(key) {
      await db.deleteFrom(table).where('key', '=', key).execute()
    },
  }
}
