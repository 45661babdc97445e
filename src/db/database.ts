// The database handle every db/ module works through: Kysely plus the few facts
// that differ between dialects (they live in dialects/, nowhere else).
import type { Kysely } from 'kysely'
import type { Dialect } from '../compile/field-types.js'

/** Tables are compiled from modules.yaml at startup, so their rows are plain records. */
export type Row = Record<string, unknown>
export type DynamicDb = Record<string, Row>
export type Db = Kysely<DynamicDb>

/** Writers that must take turns across connections and instances. */
export type LockName = 'audit' | 'migration' | 'ids'

export interface Database {
  readonly db: Db
  readonly dialect: Dialect
  /**
   * PostgreSQL: a few connections apart from the pool, for short reads made while a transaction
   * holds a pooled connection (the record keys, D41). SQLite has one connection and no need.
   */
  readonly side?: Db
  /** Where the data is, for logs; never a password. */
  readonly location: string
  /** The index or column named by a unique-constraint violation, if `error` is one. */
  uniqueViolation(error: unknown): string | undefined
  /** A lock that did not clear in time: worth a 503 with retry-after, not a 500. */
  isBusy(error: unknown): boolean
  /**
   * Serializes `name` until `trx` ends. PostgreSQL: a transaction-scoped advisory lock;
   * SQLite: nothing to do, its write transactions already hold the one write lock.
   */
  lock(trx: Db, name: LockName): Promise<void>
  /**
   * PostgreSQL: `lock` without waiting, true when taken; and a wait until whoever holds `name`
   * now lets it go, taking nothing (a shared lock, so waiters do not queue behind each other).
   * Undefined where one writer at a time is the rule anyway (SQLite). Used by the sealer (D38).
   */
  tryLock?(trx: Db, name: LockName): Promise<boolean>
  awaitLock?(name: LockName): Promise<void>
  /** The dialect has `SELECT ... FOR UPDATE` (PostgreSQL); SQLite writers never overlap. */
  readonly rowLocks: boolean
  /** After rows were inserted with explicit values of a generated key (a copy): new rows continue after the largest. */
  continueGenerated(trx: Db, table: string, column: string): Promise<void>
  /**
   * A number that changes whenever another connection commits (SQLite `PRAGMA data_version`);
   * undefined where the dialect has no such cheap signal. Lets caches skip re-reading.
   */
  dataVersion?(): number
  /**
   * Calls `onNotify` with each payload sent on `channel` by any connection (PostgreSQL LISTEN on a
   * connection of its own, reconnected when lost); resolves to a function that stops listening.
   * Undefined where the dialect has no notifications (SQLite: one host, `dataVersion` tells).
   */
  listen?(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>
  /** Sends `payload` on `channel` when `trx` commits (PostgreSQL NOTIFY); undefined elsewhere. */
  notify?(trx: Db, channel: string, payload: string): Promise<void>
  close(): Promise<void>
}
