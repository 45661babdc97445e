// Embedded SQLite through better-sqlite3: WAL, a busy timeout, write transactions
// that take the write lock up front (BEGIN IMMEDIATE) and reused prepared statements.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs'
import { dirname } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import {
  CompiledQuery,
  Kysely,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type SqliteDatabase,
  type SqliteStatement,
} from 'kysely'
import type { Database, DynamicDb } from '../database.js'
import { rowSource, statementWithRowsBuiltInJs } from './sqlite-rows.js'

interface ImmediateConfig {
  readonly database: SqliteDatabase
  /** Whether the connection is inside a transaction (better-sqlite3's `inTransaction`). */
  readonly inTransaction: () => boolean
}

class ImmediateSqliteDriver extends SqliteDriver {
  readonly #inTransaction: () => boolean
  constructor(config: ImmediateConfig) {
    super(config)
    this.#inTransaction = config.inTransaction
  }
  // A deferred transaction that reads and then writes can fail with SQLITE_BUSY when
  // another process wrote in between; taking the lock first makes busy_timeout apply.
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'))
  }
  // SQLite rolls a transaction back by itself on SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM or
  // SQLITE_BUSY; a ROLLBACK then fails with "cannot rollback - no transaction is active", and that
  // error would replace the real one in the caller's catch (F12). Nothing left to undo: nothing to do.
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (this.#inTransaction()) await super.rollbackTransaction(connection)
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: ImmediateConfig
  constructor(config: ImmediateConfig) {
    super(config)
    this.#config = config
  }
  override createDriver(): SqliteDriver {
    return new ImmediateSqliteDriver(this.#config)
  }
}

/** Kysely prepares every query; better-sqlite3 statements can be reused, so keep them (rows built in JS). */
function withStatementCache(raw: BetterSqlite3.Database): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>()
  const source = rowSource(raw)
  return {
    close: () => raw.close(),
    prepare(sql: string) {
      let statement = cache.get(sql)
      if (statement === undefined) {
        if (cache.size >= 1000) cache.clear()
        statement = statementWithRowsBuiltInJs(source, sql)
        cache.set(sql, statement)
      }
      return statement
    },
  }
}

export interface SqliteOptions {
  readonly file: string
  readonly busyTimeoutMs?: number
  /**
   * Most KiB of pages the connection keeps in memory; default the build's (16,000 KiB in
   * better-sqlite3's). A connection that only appends (the consultation log's) needs few.
   */
  readonly cacheKiB?: number
}

/**
 * The database file, and so its -wal and -shm (SQLite gives them the database file's mode),
 * readable by the owner only whatever the umask, the folder or an older file.
 */
export function makePrivate(file: string): void {
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600))
  for (const path of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(path)) chmodSync(path, 0o600)
}

export function createSqliteDatabase(options: SqliteOptions): Database {
  if (options.file !== ':memory:') {
    mkdirSync(dirname(options.file), { recursive: true, mode: 0o700 })
    makePrivate(options.file)
  }
  const raw = new BetterSqlite3(options.file)
  raw.pragma('journal_mode = WAL')
  // FULL: an acknowledged write survives a power cut, not only a process crash.
  raw.pragma('synchronous = FULL')
  // Overwritten and deleted content is zeroed, not left in free page space: after a key
  // rotation no ciphertext under the retired key survives in the file (D14).
  raw.pragma('secure_delete = ON')
  raw.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`)
  // Never map the database file into memory (the build's default, said here so it stays): a mapped
  // page the disk cannot take raises SIGBUS in the process instead of an SQLITE_IOERR (F12).
  raw.pragma('mmap_size = 0')
  if (options.cacheKiB !== undefined) raw.pragma(`cache_size = -${Math.max(1, Math.floor(options.cacheKiB))}`)
  const dataVersion = raw.prepare('pragma data_version').pluck()
  const dialect = new ImmediateSqliteDialect({
    database: withStatementCache(raw),
    inTransaction: () => raw.inTransaction,
  })
  const db = new Kysely<DynamicDb>({ dialect })
  return {
    db,
    dialect: 'sqlite',
    location: options.file,
    uniqueViolation(error) {
      const e = error as { code?: string; message?: string }
      if (e?.code !== 'SQLITE_CONSTRAINT_UNIQUE' && e?.code !== 'SQLITE_CONSTRAINT_PRIMARYKEY') return undefined
      // "UNIQUE constraint failed: table.column"
      return /failed: [^.]+\.([^, ]+)/.exec(e.message ?? '')?.[1]
    },
    isBusy: (error) => {
      const code = (error as { code?: string })?.code ?? ''
      return code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_') || code === 'SQLITE_LOCKED'
    },
    lock: async () => undefined,
    rowLocks: false,
    // An INTEGER PRIMARY KEY continues after the largest rowid by itself.
    continueGenerated: async () => undefined,
    dataVersion: () => dataVersion.get() as number,
    close: () => db.destroy(),
  }
}
