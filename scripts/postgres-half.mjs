// The PostgreSQL half of the suite: the integration tests that use the database under test
// again (integrationTests below), on a fresh PostgreSQL database per data directory, with rate
// limits counted in Redis, plus the multi-instance test. Outside CI a missing PostgreSQL skips
// this half LOUDLY; in CI (CI set) a missing PostgreSQL or Redis fails the run. scripts/tap.mjs
// runs it beside the SQLite half (`--with-postgres`, `npm test`) or alone (`--postgres-only`,
// `npm run test:postgres`).
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import pg from 'pg'
import { Redis } from 'ioredis'

// Any CI value but '', 0 or false counts: CI systems set CI=true, .ci/run may set CI=1.
const CI = !['', '0', 'false', 'no'].includes((process.env.CI ?? '').toLowerCase())
export const postgresUrl = process.env.RECORDS_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test'
const redisUrl = process.env.RECORDS_TEST_REDIS_URL || 'redis://127.0.0.1:6379'

function loud(lines) {
  const bar = '!'.repeat(78)
  console.error(`\n${bar}\n${lines.map((l) => `!!! ${l}`).join('\n')}\n${bar}\n`)
}

async function postgresAnswers() {
  const client = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 3000 })
  try {
    await client.connect()
    await client.query('select 1')
    return true
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  } finally {
    await client.end().catch(() => undefined)
  }
}

async function redisAnswers() {
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 3000,
    retryStrategy: () => null,
  })
  redis.on('error', () => undefined)
  try {
    await redis.connect()
    return (await redis.ping()) === 'PONG' || 'no PONG'
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  } finally {
    redis.disconnect()
  }
}

/**
 * What a test names when it works on the database under test: the helpers that give it a
 * PostgreSQL database and Redis in this half (test/helpers/api.ts and postgres.ts, which define
 * them). A test without any of them, through the test modules it imports, works on an embedded
 * SQLite file in both halves (the `records` tests of test/integration/cli drive a DATA_DIR) and
 * ran in the SQLite half already: running it again here checks nothing new.
 */
const DATABASE_UNDER_TEST =
  /\b(startTestApi|databaseEnv|copyTestData|ON_POSTGRES|databaseFor|cloneDatabaseFor|urlOf|ADMIN_URL|REDIS_URL|redisEnv|RECORDS_TEST_DATABASE)\b/
const DEFINITIONS = new Set(['test/helpers/api.ts', 'test/helpers/postgres.ts'])

/** Whether `file` (a path from the root) or a test module it imports names the database under test. */
function onDatabaseUnderTest(file, seen = new Set()) {
  if (seen.has(file) || DEFINITIONS.has(file)) return false
  seen.add(file)
  const source = readFileSync(file, 'utf8')
  if (DATABASE_UNDER_TEST.test(source)) return true
  // Static, side-effect and dynamic imports of a test module; one of test/helpers/postgres.ts
  // is about the database under test whatever it names.
  const imports = [...source.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)\.js'/g)].map((m) =>
    relative('.', join(dirname(file), `${m[1]}.ts`)),
  )
  if (imports.includes('test/helpers/postgres.ts')) return true
  return imports.some(
    (imported) => imported.startsWith('test/') && existsSync(imported) && onDatabaseUnderTest(imported, seen),
  )
}

/**
 * The suite's test files that work on the database under test (tap given a directory would also
 * run its helper modules, as empty tests).
 */
function integrationTests() {
  const all = readdirSync('test/integration', { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.test.ts'))
    .sort()
    .map((f) => join('test/integration', f))
  const chosen = all.filter((f) => onDatabaseUnderTest(f))
  console.log(`PostgreSQL half: ${chosen.length} of ${all.length} integration files (the others use SQLite only)`)
  return chosen
}

/**
 * The PostgreSQL half's test files (those of `args` when some are named) and the environment its
 * test processes run in, or undefined when it is skipped (said LOUDLY). In CI a PostgreSQL or
 * Redis that does not answer ends the process with status 1 instead.
 */
export async function postgresHalf(args = []) {
  const postgres = await postgresAnswers()
  if (postgres !== true) {
    loud([
      `PostgreSQL is not reachable at ${postgresUrl.replace(/:[^:@/]+@/, ':***@')} (${postgres}).`,
      CI
        ? 'CI is set: the PostgreSQL half of the suite is required. FAILING.'
        : 'THE POSTGRESQL HALF OF THE SUITE WAS SKIPPED: nothing was tested on PostgreSQL.',
      'Start it (see docs/deployment.md) or set RECORDS_TEST_POSTGRES_URL.',
    ])
    if (CI) process.exit(1)
    return undefined
  }
  const redis = await redisAnswers()
  if (redis !== true) {
    loud([
      `Redis is not reachable at ${redisUrl} (${redis}).`,
      CI
        ? 'CI is set: Redis is required. FAILING.'
        : 'Running on PostgreSQL with per-process rate limits; the multi-instance test will be SKIPPED.',
    ])
    if (CI) process.exit(1)
  }
  console.log(
    `PostgreSQL half: test/integration on ${postgresUrl.replace(/:[^:@/]+@/, ':***@')}${redis === true ? ` with Redis ${redisUrl}` : ''}`,
  )
  return {
    files: args.length > 0 ? args : integrationTests(),
    env: {
      RECORDS_TEST_DATABASE: 'postgres',
      RECORDS_TEST_POSTGRES_URL: postgresUrl,
      ...(redis === true ? { RECORDS_TEST_REDIS_URL: redisUrl } : {}),
    },
  }
}
