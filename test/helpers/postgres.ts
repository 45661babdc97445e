// The PostgreSQL half of the suite: RECORDS_TEST_DATABASE=postgres runs each integration
// test that uses the database under test (scripts/postgres-half.mjs chooses them) on a fresh
// PostgreSQL database per data directory, dropped when the
// test file ends. The server is RECORDS_TEST_POSTGRES_URL (default: the local one).
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import t, { type Test } from 'tap'
import { IN_CI } from './ci.js'

export { IN_CI }

export const ON_POSTGRES = process.env['RECORDS_TEST_DATABASE'] === 'postgres'
export const ADMIN_URL = process.env['RECORDS_TEST_POSTGRES_URL'] || 'postgres://postgres@127.0.0.1:5432/test'

/** Set by scripts/postgres-half.mjs when Redis answers: rate limits then count in Redis too. */
export const REDIS_URL = process.env['RECORDS_TEST_REDIS_URL'] || undefined

/** REDIS_URL and a key prefix nobody else uses, for one service under test. */
export function redisEnv(): Record<string, string> {
  return REDIS_URL === undefined
    ? {}
    : { REDIS_URL, REDIS_KEY_PREFIX: `records-test:${process.pid}:${randomBytes(4).toString('hex')}:` }
}

/** A URL to `database` on the test server. */
export function urlOf(database: string): string {
  const url = new URL(ADMIN_URL)
  url.pathname = `/${database}`
  return url.toString()
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

/** True when the test server answers. */
export async function postgresReachable(): Promise<boolean> {
  try {
    await admin((c) => c.query('select 1'))
    return true
  } catch {
    return false
  }
}

/**
 * Whether PostgreSQL answers; when it does not, says so loudly (`fallback`: what the file
 * tests instead), and fails `t` in CI, where PostgreSQL is required.
 */
export async function requirePostgres(t: Test, fallback: string): Promise<boolean> {
  if (await postgresReachable()) return true
  const message = `PostgreSQL IS NOT REACHABLE: ${fallback}`
  if (IN_CI) t.fail(`${message} (CI requires PostgreSQL)`)
  else t.comment(`!!! ${message} !!!`)
  return false
}

const created: string[] = []
let dropScheduled = false

/** Creates database `name`, fresh (byte-order collation, as SQLite compares) or cloned from `template`. */
async function createDatabase(name: string, template?: string): Promise<void> {
  await admin(async (c) => {
    await c.query(
      template === undefined
        ? `create database ${name} template template0 encoding 'UTF8' lc_collate 'C' lc_ctype 'C'`
        : `create database ${name} template ${template}`,
    )
    // Throwaway databases need no fsync per commit (the service's own durability is PostgreSQL's setting).
    await c.query(`alter database ${name} set synchronous_commit = off`)
  })
}

/** Creates a fresh database or one cloned from `template`, dropped when the test file ends. */
export async function createTestDatabase(template?: string): Promise<string> {
  const name = `records_pg_${process.pid}_${randomBytes(4).toString('hex')}`
  created.push(name)
  await createDatabase(name, template)
  if (!dropScheduled) {
    dropScheduled = true
    t.teardown(dropTestDatabases)
  }
  return name
}

/**
 * A fresh database for `dataDir` that outlives this test file (the run's migrated template,
 * api.ts); the caller records its name where scripts/tap.mjs drops it.
 */
export async function createRunDatabase(dataDir: string): Promise<string> {
  const name = `records_tpl_${process.pid}_${randomBytes(4).toString('hex')}`
  await createDatabase(name)
  byDataDir.set(dataDir, name)
  return name
}

/** Names the database of `dataDir`, which another test process created (the run's template). */
export function adoptDatabase(dataDir: string, name: string): void {
  byDataDir.set(dataDir, name)
}

/** How many of a file's databases are dropped at once (each on a connection of its own). */
const DROPS_AT_ONCE = 6

/**
 * Drops the databases this process created. A DROP DATABASE waits for every backend of the
 * server to acknowledge it (a second or more on a busy machine), so they go a few at a time:
 * four took 2.7 s one after another and 0.35 s together.
 */
export async function dropTestDatabases(): Promise<void> {
  // The next file of the same test process (test/setup/file-queue.ts) schedules its own.
  dropScheduled = false
  const names = created.splice(0)
  const dropNext = async (): Promise<void> => {
    for (let name = names.shift(); name !== undefined; name = names.shift()) {
      const dropping = name
      await admin((c) => c.query(`drop database if exists ${dropping} with (force)`))
    }
  }
  await Promise.all(Array.from({ length: Math.min(DROPS_AT_ONCE, names.length) }, dropNext))
}

const byDataDir = new Map<string, string>()

/** The database that belongs to a test data directory: the same one on every restart. */
export async function databaseFor(dataDir: string): Promise<string> {
  let name = byDataDir.get(dataDir)
  if (name === undefined) {
    name = await createTestDatabase()
    byDataDir.set(dataDir, name)
  }
  return name
}

/** `cpSync(from, to)` for the database: `to` gets a copy of `from`'s database (no open connections to it). */
export async function cloneDatabaseFor(from: string, to: string): Promise<void> {
  const source = byDataDir.get(from)
  if (source === undefined) throw new Error(`no test database for ${from}`)
  byDataDir.set(to, await createTestDatabase(source))
}
