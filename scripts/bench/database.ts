// The database a benchmark run measures: the one place where the bench tells SQLite
// from PostgreSQL. SQLite (the default) is a file in the run's temp directory; PostgreSQL is a
// fresh database, `records_bench_<random>`, created on the server of an admin URL with
// byte-order collation (as SQLite compares, like test/helpers/postgres.ts) and dropped after.
// Both the service and the bare stack get the same database and the same pool size; a PostgreSQL
// database gets `synchronous_commit = on` for every connection to it (D45).
import { randomBytes } from 'node:crypto'
import { closeSync, fsyncSync, openSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'

export type DatabaseKind = 'sqlite' | 'postgres'

export const DEFAULT_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/test'
/** The service's DATABASE_POOL_SIZE, the bare stack's pool and the peer's `db.poolSize`, on PostgreSQL. */
export const POOL_SIZE = 10

export interface BenchDatabase {
  /** What the report prints, e.g. "SQLite" or "PostgreSQL 15.20". */
  readonly label: string
  /** Added to the environment of the seeding process and the service. */
  readonly serviceEnv: Readonly<Record<string, string>>
  /** The bare stack's environment: where it reads and where its insert twin writes. */
  readonly bareEnv: Readonly<Record<string, string>>
  /** After the seed, before any server starts: the seed's writes reach the disk. */
  settle(): Promise<void>
  /** Removes what `openBenchDatabase` created (the temp directory is the caller's). */
  drop(): Promise<void>
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

function sqliteDatabase(dataDir: string): BenchDatabase {
  const file = join(dataDir, 'records.db')
  return {
    label: 'SQLite',
    serviceEnv: {},
    bareEnv: { BENCH_DB: file, BENCH_BARE_DB: join(dataDir, 'bare.db') },
    async settle() {
      const fd = openSync(file, 'r')
      fsyncSync(fd)
      closeSync(fd)
    },
    async drop() {},
  }
}

async function postgresDatabase(adminUrl: string): Promise<BenchDatabase> {
  const name = `records_bench_${randomBytes(4).toString('hex')}`
  const version = await withClient(adminUrl, async (c) => {
    await c.query(`create database ${name} template template0 encoding 'UTF8' lc_collate 'C' lc_ctype 'C'`)
    // D45: every connection to it commits durably, whatever the server's default; each target
    // reads it back on its own connections for the report.
    await c.query(`alter database ${name} set synchronous_commit = on`)
    return String(((await c.query('show server_version')).rows[0] as { server_version: string }).server_version)
  })
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  const databaseUrl = url.toString()
  return {
    label: `PostgreSQL ${version.split(' ')[0] ?? version} (${name})`,
    serviceEnv: { DATABASE_URL: databaseUrl, DATABASE_POOL_SIZE: String(POOL_SIZE) },
    bareEnv: { BENCH_DATABASE_URL: databaseUrl, BENCH_POOL_SIZE: String(POOL_SIZE) },
    async settle() {
      // Planner statistics as autovacuum would leave them, then the seed's pages to disk.
      await withClient(databaseUrl, async (c) => {
        await c.query('vacuum analyze')
        await c.query('checkpoint')
      })
    },
    async drop() {
      await withClient(adminUrl, (c) => c.query(`drop database if exists ${name} with (force)`))
    },
  }
}

export async function openBenchDatabase(kind: DatabaseKind, dataDir: string, adminUrl: string): Promise<BenchDatabase> {
  return kind === 'postgres' ? postgresDatabase(adminUrl) : sqliteDatabase(dataDir)
}
