// `tap` for `npm test` (`--with-postgres`: both halves at once) and `npm run test:postgres`
// (`--postgres-only`), with tap's own options and test files. Nothing a test checks changes here;
// `npx tap <file>` runs the same tests, only slower.
//
// - Test files run in a few long test processes instead of one each (test/setup/file-queue.ts):
//   tap, its coverage and the service's modules load once per runner, not once per file. The
//   SQLite half and the PostgreSQL half (scripts/postgres-half.mjs) each have a queue and two
//   runners, all four at once: the PostgreSQL half waits on its server about half the time.
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
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statfsSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir as osTmpdir } from 'node:os'
import { basename, join, normalize, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { postgresHalf, postgresUrl } from './postgres-half.mjs'

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
  const client = new pg.Client({ connectionString: postgresUrl })
  await client.connect()
  try {
    for (const name of names) await client.query(`drop database if exists ${name} with (force)`)
  } finally {
    await client.end()
  }
}

/** Runners per queue: package.json's tap "jobs", or RECORDS_TEST_RUNNERS. */
const RUNNERS_PER_QUEUE =
  Number(process.env.RECORDS_TEST_RUNNERS) || JSON.parse(readFileSync('package.json', 'utf8')).tap.jobs
/** How long a queue runner may take in all (each of its files has tap's 300 s of its own). */
const RUNNER_TIMEOUT_S = 4 * 3600
/** The run's runner files: in the project, as tap writes each one's results by its relative path. */
const runnersOf = (runDir) => join('.tap/queue', basename(runDir))

const OWN_FLAGS = new Set(['--with-postgres', '--postgres-only'])
/** tap's options that choose tests by name: `--grep`, `--only`, `--invert` and their short forms. */
const FILTERS = /^(--grep|--only|--invert|-g|-O|-i)(=|$)/

/** The test files under `dir`; under test/, every test file of the project (package.json's "include"). */
function testFilesUnder(dir) {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((file) => file.endsWith('.test.ts'))
    .sort()
    .map((file) => join(dir, file))
}

/**
 * The queues of this run, each files and the environment of the test processes that run them:
 * the SQLite half (`files`, or every test file), the PostgreSQL half (scripts/postgres-half.mjs)
 * with `--with-postgres`, or that half alone with `--postgres-only` (`files`, or its own).
 */
async function queuesOf(args) {
  const named = (arg) => arg.endsWith('.test.ts') || (existsSync(arg) && statSync(arg).isDirectory())
  // A path that names nothing is a typing mistake, not one of tap's options.
  const missing = args.filter((arg) => !arg.startsWith('-') && /[\\/]|\.ts$/.test(arg) && !existsSync(arg))
  if (missing.length > 0) {
    console.error(`no such test file or directory: ${missing.join(', ')}`)
    process.exit(1)
  }
  const files = args.filter(named).flatMap((arg) => (arg.endsWith('.test.ts') ? [normalize(arg)] : testFilesUnder(arg)))
  const options = args.filter((arg) => !named(arg) && !OWN_FLAGS.has(arg))
  const postgresOnly = args.includes('--postgres-only')
  const queues = postgresOnly
    ? []
    : [{ name: 'sqlite', files: files.length > 0 ? files : testFilesUnder('test'), env: {} }]
  let postgresSkipped = false
  if (postgresOnly || args.includes('--with-postgres')) {
    const half = await postgresHalf(postgresOnly ? files : [])
    postgresSkipped = half === undefined
    // Files named with --with-postgres: those of them the PostgreSQL half would run.
    const chosen = postgresOnly || files.length === 0 ? half?.files : half?.files.filter((f) => files.includes(f))
    if (half !== undefined && chosen.length > 0) queues.push({ name: 'postgres', ...half, files: chosen })
  }
  // Coverage is of `npm test`, both halves at once: the PostgreSQL half alone skips measuring it.
  return { queues, options: postgresOnly ? ['--disable-coverage', ...options] : options, postgresSkipped }
}

/**
 * Whether the files run from queues: not with tap's filters, which apply to a process's top-level
 * tests (in a runner, the files), nor with RECORDS_TEST_QUEUE=0 (one process a file).
 */
function queuedRun(queues, options) {
  return (
    queues.length > 1 || !(options.some((option) => FILTERS.test(option)) || process.env.RECORDS_TEST_QUEUE === '0')
  )
}

/**
 * The files tap runs, and whether they are queue runners. One file: that file. More: the queues
 * go into the run's directory and tap runs their runners instead (test/setup/file-queue.ts), two
 * a queue, each a test process that runs the queue's files until none is left.
 */
function entriesOf(runDir, queues, options) {
  const files = queues.flatMap((queue) => queue.files)
  if (files.length < 2 || !queuedRun(queues, options)) return { entries: files, queued: false }
  writeFileSync(join(runDir, 'queues.json'), JSON.stringify(Object.fromEntries(queues.map((q) => [q.name, q]))))
  const runner = pathToFileURL(resolve('test/setup/file-queue.ts')).href
  const runners = runnersOf(runDir)
  mkdirSync(runners, { recursive: true })
  const entries = queues.flatMap(({ name, files }) =>
    Array.from({ length: Math.min(files.length, RUNNERS_PER_QUEUE) }, (_, index) => {
      const entry = join(runners, `${name}-${index + 1}.test.ts`)
      writeFileSync(entry, `import { runQueue } from '${runner}'\nawait runQueue('${name}')\n`)
      return entry
    }),
  )
  return { entries, queued: true }
}

/** The files of `queue` that no runner started (one died before it got to them, or tap skipped them). */
function unclaimed(runDir, queue) {
  let started = []
  try {
    started = readdirSync(join(runDir, 'started', queue.name)).map(Number)
  } catch {
    // No runner started anything.
  }
  return queue.files.filter((_, index) => !started.includes(index))
}

const skipTsNode = "--import=data:text/javascript,process.env.TAP_TYPE_STRIP_ONLY='1'"
const { queues, options, postgresSkipped } = await queuesOf(process.argv.slice(2))
if (queues.length === 0) process.exit(0)
if (queues.length > 1 && options.some((option) => FILTERS.test(option))) {
  console.error("tap's --grep, --only and --invert choose among one half's files: drop --with-postgres")
  process.exit(1)
}
const tmpdir = memoryTmpdir()
const runDir = mkdtempSync(join(tmpdir ?? osTmpdir(), 'records-run-'))
// Ctrl-C reaches tap through the terminal's process group; this process stays to clean up.
process.on('SIGINT', () => undefined)
const { entries, queued } = entriesOf(runDir, queues, options)
const tapOptions = queued ? [`--timeout=${RUNNER_TIMEOUT_S}`, `--jobs=${entries.length}`] : []
const started = Date.now()
const result = spawnSync('npx', ['tap', ...tapOptions, ...options, ...entries], {
  stdio: 'inherit',
  env: {
    ...process.env,
    // A file run alone runs in its queue's environment; the runners set theirs.
    ...(queued ? {} : queues.find((queue) => queue.files.length > 0)?.env),
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} ${skipTsNode}`.trim(),
    ...(tmpdir === undefined ? {} : { TMPDIR: tmpdir }),
    RECORDS_TEST_RUN_DIR: runDir,
  },
})
const left = queued ? queues.flatMap((queue) => unclaimed(runDir, queue)) : []
if (left.length > 0) console.error(`\n${left.length} test files were not run:\n${left.join('\n')}`)
await dropRunDatabases(runDir).catch((error) => console.error(`could not drop the run's test databases: ${error}`))
rmSync(runDir, { recursive: true, force: true })
if (queued) rmSync(runnersOf(runDir), { recursive: true, force: true })
if (tmpdir !== undefined) rmSync(tmpdir, { recursive: true, force: true })
if (postgresSkipped)
  console.error('\n!!! THE POSTGRESQL HALF OF THE SUITE WAS SKIPPED: see the message at the start. !!!\n')
const passed = left.length === 0 && result.status === 0
console.log(
  `${queues.map((queue) => `${queue.name} (${queue.files.length} files)`).join(' and ')}: ${passed ? 'passed' : 'FAILED'} in ${Math.round((Date.now() - started) / 1000)} s`,
)
process.exit(passed ? 0 : 1)
