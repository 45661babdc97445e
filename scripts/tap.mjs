// `tap` for `npm test` and the PostgreSQL half (scripts/test-postgres.mjs), with its arguments.
// Nothing a test checks changes here; `npx tap <file>` runs the same tests, only slower.
//
// - tap's TypeScript plugin preloads ts-node into every test process on Node < 22, about 0.7 s
//   of CPU each, although test/setup/register.mjs (esbuild) transpiles every source before
//   ts-node sees it. The plugin's preload skips ts-node when TAP_TYPE_STRIP_ONLY is 1, but tap
//   sets it to 0 on Node < 22 before it starts a test; a preload in NODE_OPTIONS runs before
//   tap's own and sets it back.
// - The tests' data directories (os.tmpdir()) go to /dev/shm when it is a memory filesystem with
//   room to spare: the SQLite files are as real, and a commit's fsync no longer waits for the
//   disk (the service's own durability setting, synchronous = FULL, is unchanged). TMPDIR set
//   by the caller wins; so does the disk when /dev/shm is small or missing.
// - The run has a directory of its own (RECORDS_TEST_RUN_DIR): its test processes share one
//   migrated template there (test/helpers/api.ts) instead of making one each. It goes when tap
//   ends, with the PostgreSQL databases its `.database` files name.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync } from 'node:fs'
import { tmpdir as osTmpdir } from 'node:os'
import { join } from 'node:path'

const TMPFS_MAGIC = 0x01021994
const ROOM = 4 * 1024 ** 3

function memoryTmpdir() {
  if (process.env.TMPDIR) return undefined
  try {
    const fs = statfsSync('/dev/shm')
    return fs.type === TMPFS_MAGIC && fs.bavail * fs.bsize >= ROOM
      ? mkdtempSync(join('/dev/shm', 'records-tests-'))
      : undefined
  } catch {
    return undefined
  }
}

/** Drops the PostgreSQL databases that the run's `.database` files name (test/helpers/api.ts). */
async function dropRunDatabases(runDir) {
  const names = readdirSync(runDir)
    .filter((file) => file.endsWith('.database'))
    .map((file) => readFileSync(join(runDir, file), 'utf8'))
  if (names.length === 0) return
  const { default: pg } = await import('pg')
  const client = new pg.Client({
    connectionString: process.env.RECORDS_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test',
  })
  await client.connect()
  try {
    for (const name of names) await client.query(`drop database if exists ${name} with (force)`)
  } finally {
    await client.end()
  }
}

const skipTsNode = "--import=data:text/javascript,process.env.TAP_TYPE_STRIP_ONLY='1'"
const tmpdir = memoryTmpdir()
const runDir = mkdtempSync(join(tmpdir ?? osTmpdir(), 'records-run-'))
// Ctrl-C reaches tap through the terminal's process group; this process stays to clean up.
process.on('SIGINT', () => undefined)
const result = spawnSync('npx', ['tap', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: {
    ...process.env,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} ${skipTsNode}`.trim(),
    ...(tmpdir === undefined ? {} : { TMPDIR: tmpdir }),
    RECORDS_TEST_RUN_DIR: runDir,
  },
})
await dropRunDatabases(runDir).catch((error) => console.error(`could not drop the run's test databases: ${error}`))
rmSync(runDir, { recursive: true, force: true })
if (tmpdir !== undefined) rmSync(tmpdir, { recursive: true, force: true })
process.exit(result.status ?? 1)
