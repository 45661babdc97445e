// D45: `npm run bench` prints each target's durability settings as its own connections answer
// them. The service's and the bare stack's readers, on the database the suite runs on (SQLite, or
// PostgreSQL under RECORDS_TEST_DATABASE=postgres): they answer what the connections run with,
// and a connection changed behind their back shows in what they answer (they read, they do not
// repeat what was asked). On PostgreSQL the suite's databases commit with `synchronous_commit =
// off` (test/helpers/postgres.ts), so there the readers must answer off, and the bench's own
// databases must answer on. Not a speed test.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import pg from 'pg'
import t from 'tap'
import { openBareStore } from '../../../scripts/bench/bare-store.js'
import { openBenchDatabase } from '../../../scripts/bench/database.js'
import { formatDurability, hasServiceDurability, postgresSettings } from '../../../scripts/bench/durability.js'
import { readEveryConnection } from '../../../scripts/bench/every-connection.js'
import { serviceDurability } from '../../../scripts/bench/service-settings.js'
import { startTestApi } from '../../helpers/api.js'
import { ADMIN_URL, databaseFor, ON_POSTGRES, urlOf } from '../../helpers/postgres.js'

/** The service's DATABASE_POOL_SIZE under test (its default). */
const POOL = 10
const on = ON_POSTGRES ? 'PostgreSQL' : 'SQLite'

/** What a new connection to `url` gets: the database's setting. */
async function synchronousCommitOf(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return String((await client.query('show synchronous_commit')).rows[0]?.synchronous_commit)
  } finally {
    await client.end()
  }
}

t.test(`the service's settings on ${on}, read from its connections`, async (t) => {
  const api = await startTestApi(t)
  const database = api.service.database
  const read = await serviceDurability(database, POOL)
  t.equal(read.connections.length, ON_POSTGRES ? POOL : 1, 'every connection it holds, each once')

  if (!ON_POSTGRES) {
    t.same(read.connections, [{ kind: 'sqlite', journalMode: 'WAL', synchronous: 'FULL' }], 'as the service sets them')
    t.equal(formatDurability(read), 'journal_mode=WAL, synchronous=FULL (its 1 connection)')
    await sql`pragma synchronous = NORMAL`.execute(database.db)
    t.equal(
      formatDurability(await serviceDurability(database, POOL)),
      "journal_mode=WAL, synchronous=NORMAL (its 1 connection): NOT the service's durability",
      'a changed connection shows',
    )
    await sql`pragma synchronous = FULL`.execute(database.db)
    return
  }
  const given = await synchronousCommitOf(urlOf(await databaseFor(api.dataDir)))
  t.equal(given, 'off', "the suite's databases")
  t.ok(
    read.connections.every((c) => c.kind === 'postgres' && c.synchronousCommit === given),
    formatDurability(read),
  )
  // One connection changed: what is read changes with it, the others stay as they are.
  await database.db.connection().execute((c) => sql`set synchronous_commit = on`.execute(c))
  const mixed = await serviceDurability(database, POOL)
  t.equal(mixed.connections.filter(hasServiceDurability).length, 1, 'the one connection changed')
  t.equal(
    formatDurability(mixed),
    `synchronous_commit=off on ${POOL - 1} of ${POOL} connections; synchronous_commit=on on 1 of ${POOL} connections: NOT the service's durability`,
  )
  await readEveryConnection(POOL, (work) =>
    database.db.connection().execute((c) => work(async () => void (await sql`reset synchronous_commit`.execute(c)))),
  )
})

t.test(`the bare stack's settings on ${on}, read from its connections`, async (t) => {
  const api = await startTestApi(t)
  const url = ON_POSTGRES ? urlOf(await databaseFor(api.dataDir)) : ''
  const env: Record<string, string> = ON_POSTGRES
    ? { BENCH_DATABASE_URL: url, BENCH_POOL_SIZE: '3' }
    : { BENCH_DB: `${api.dataDir}/records.db`, BENCH_BARE_DB: `${api.dataDir}/bare.db` }
  const store = await openBareStore(
    (name) => env[name] ?? '',
    (name) => env[name],
  )
  t.teardown(() => store.close())
  const read = await store.settings()
  // SQLite: the file it reads and the file its insert twin writes; PostgreSQL: each pooled connection.
  if (ON_POSTGRES) t.same(read.connections, Array(3).fill(postgresSettings(await synchronousCommitOf(url))))
  else t.equal(formatDurability(read), 'journal_mode=WAL, synchronous=FULL (each of its 2 connections)')
})

t.test(
  "the bench's PostgreSQL database commits durably on every connection",
  { skip: ON_POSTGRES ? false : 'the PostgreSQL half only' },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'records-bench-test-'))
    const database = await openBenchDatabase('postgres', dir, ADMIN_URL)
    t.teardown(async () => {
      await database.drop()
      rmSync(dir, { recursive: true, force: true })
    })
    const url = database.serviceEnv['DATABASE_URL'] as string
    t.equal(await synchronousCommitOf(url), 'on')
    // Said by the database itself, not left to the server's default (on here, maybe not elsewhere).
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    t.teardown(() => client.end())
    const { rows } = await client.query(
      'select setconfig from pg_db_role_setting where setdatabase = (select oid from pg_database where datname = current_database()) and setrole = 0',
    )
    t.same(rows, [{ setconfig: ['synchronous_commit=on'] }])
  },
)
