// A test process of scripts/tap.mjs that runs test files from one of the run's queues, one after
// another, until none is left: a file then pays the start of a test process (tap, its coverage,
// the service's modules) once per runner instead of once per file. A queue's runners claim its
// files in order with an atomic mkdir, so they share the work however long each file takes.
// Each file runs inside a test named after it (file-tap.ts), which ends with the file's own
// teardowns; a file skips with a test's `skip` option, never `t.plan(0)` (that would end the
// file's test before its tests).
import { mkdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import tap from 'tap'
import { beginFile } from './file-tap.js'

/** What a file may take, as `npx tap` gives each test process (package.json, "tap"."timeout"). */
const FILE_TIMEOUT_MS = 300_000
/** How long a runner may stay after its last file before it fails. */
const LINGER_MS = 60_000

interface Queue {
  readonly files: readonly string[]
  /** The environment of its test processes (the PostgreSQL half's database and Redis). */
  readonly env: Readonly<Record<string, string>>
}

/** Runs the files of queue `name` that no other runner has claimed. */
export async function runQueue(name: string): Promise<void> {
  const runDir = process.env['RECORDS_TEST_RUN_DIR']
  if (runDir === undefined) throw new Error('a queue runner runs under scripts/tap.mjs (RECORDS_TEST_RUN_DIR)')
  const queue = (JSON.parse(readFileSync(join(runDir, 'queues.json'), 'utf8')) as Record<string, Queue>)[name]
  if (queue === undefined) throw new Error(`no test queue named ${name}`)
  // Before any test module is loaded: the helpers read it as they load.
  Object.assign(process.env, queue.env)
  const claims = join(runDir, 'claims', name)
  mkdirSync(claims, { recursive: true })
  const claim = (from: number): number | undefined => {
    for (let index = from; index < queue.files.length; index++) {
      try {
        mkdirSync(join(claims, String(index)))
        return index
      } catch {
        // Another runner has it.
      }
    }
    return undefined
  }
  const started = join(runDir, 'started', name)
  mkdirSync(started, { recursive: true })
  for (let index = claim(0); index !== undefined; index = claim(index + 1)) {
    const file = resolve(queue.files[index]!)
    await tap.test(relative(process.cwd(), file), { timeout: FILE_TIMEOUT_MS }, async (t) => {
      // What scripts/tap.mjs counts as run: a file whose test tap skipped was claimed, not run.
      mkdirSync(join(started, String(index)))
      beginFile(t)
      await import(pathToFileURL(file).href)
    })
  }
  // A file's test that timed out fails, but what it left running (a server, a child, a timer)
  // would keep this process, and the run, alive: once the queue is done it has a while to end.
  setTimeout(() => {
    console.error(`a test file left work running after the queue ended: ${process.getActiveResourcesInfo().join(', ')}`)
    process.exit(1)
  }, LINGER_MS).unref()
}
