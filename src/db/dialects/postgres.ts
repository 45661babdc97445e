// PostgreSQL through `pg` and Kysely's PostgresDialect: a connection pool shared by the
// requests of one instance; many instances share the database.
import pg from 'pg'
import { Kysely, PostgresDialect, sql } from 'kysely'
import type { Database, Db, DynamicDb, LockName } from '../database.js'

export interface PostgresOptions {
  readonly url: string
  /** Connections per instance (DATABASE_POOL_SIZE); N instances hold up to N times this. */
  readonly poolSize?: number
}

const INT8 = 20
const NUMERIC = 1700
/**
 * bigint and numeric arrive as numbers, as they do from SQLite; integer fields are bounded to 2^53 (field-types.ts).
 */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8 || oid === NUMERIC
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
}

/** Advisory lock keys, one per serialized writer; scoped to the database. */
const LOCK_KEYS: Readonly<Record<LockName, number>> = { audit: 0x5245_4301, migration: 0x5245_4302, ids: 0x5245_4303 }

/** SQLSTATEs of a lock or snapshot that did not clear: retryable, a 503 and not a 500. */
const BUSY_CODES = new Set(['40001', '40P01', '55P03', '57014', '53300', '57P03'])

/** The URL without its password, for logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.password !== '') parsed.password = '***'
    return parsed.toString()
  } catch {
    return 'postgres://…'
  }
}

export function createPostgresDatabase(options: PostgresOptions): Database {
  const pool = new pg.Pool({ connectionString: options.url, max: options.poolSize ?? 10, types })
  // An idle connection that the server drops must not crash the process; the next query reconnects.
  pool.on('error', () => undefined)
  const db = new Kysely<DynamicDb>({ dialect: new PostgresDialect({ pool }) })
  // Two connections of their own for lookups made while a request's transaction holds a pooled
  // one (record keys, D41): waiting on the main pool from inside a transaction could exhaust it.
  // pg connects lazily: a process that never looks anything up opens none.
  const sidePool = new pg.Pool({ connectionString: options.url, max: 2, types })
  sidePool.on('error', () => undefined)
  const side = new Kysely<DynamicDb>({ dialect: new PostgresDialect({ pool: sidePool }) })
  return {
    db,
    side,
    dialect: 'postgres',
    location: redactUrl(options.url),
    uniqueViolation(error) {
      const e = error as { code?: string; constraint?: string }
      return e?.code === '23505' ? e.constraint : undefined
    },
    isBusy(error) {
      const e = error as { code?: string; message?: string }
      return BUSY_CODES.has(e?.code ?? '') || /timeout exceeded when trying to connect/.test(e?.message ?? '')
    },
    async lock(trx: Db, name: LockName) {
      await sql`select pg_advisory_xact_lock(${LOCK_KEYS[name]})`.execute(trx)
    },
    async tryLock(trx: Db, name: LockName) {
      const { rows } = await sql<{
        taken: boolean
      }>`select pg_try_advisory_xact_lock(${LOCK_KEYS[name]}) as taken`.execute(trx)
      return rows[0]?.taken === true
    },
    async awaitLock(name: LockName) {
      await db.transaction().execute((trx) => sql`select pg_advisory_xact_lock_shared(${LOCK_KEYS[name]})`.execute(trx))
    },
    rowLocks: true,
    async continueGenerated(trx: Db, table: string, column: string) {
      await sql`select setval(pg_get_serial_sequence(${table}, ${column}), coalesce((select max(${sql.ref(column)}) from ${sql.table(table)}), 0) + 1, false)`.execute(
        trx,
      )
    },
    async notify(trx, channel, payload) {
      await sql`select pg_notify(${channel}, ${payload})`.execute(trx)
    },
    listen: (channel, onNotify) => listen(options.url, channel, onNotify),
    async close() {
      await side.destroy()
      await db.destroy()
    },
  }
}

/** LISTEN on a client of its own (a pooled connection would be handed to other queries). */
async function listen(url: string, channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>> {
  let client: pg.Client | undefined
  let stopped = false
  let retry: NodeJS.Timeout | undefined
  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url })
    const lost = () => {
      if (client !== next) return
      client = undefined
      void next.end().catch(() => undefined)
      // Lost: reconnect in a second; the caller's own poll covers the gap.
      if (!stopped) retry = setTimeout(() => void connect().catch(lost), 1000).unref()
    }
    next.on('error', lost)
    next.on('end', lost)
    next.on('notification', (message) => {
      if (message.channel === channel) onNotify(message.payload ?? '')
    })
    client = next
    await next.connect()
    await next.query(`listen ${pg.escapeIdentifier(channel)}`)
  }
  await connect()
  return async () => {
    stopped = true
    if (retry !== undefined) clearTimeout(retry)
    const open = client
    client = undefined
    await open?.end().catch(() => undefined)
  }
}
