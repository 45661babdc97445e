// "start to healthy" as a user sees it: `npm start` from the command to the
// first 200 of /api/health, polled every 20 ms, on a fresh data directory (the first start
// creates the database and the first admin) and on one already initialised. npm's own start-up
// is part of the figure, as it is of the user's wait. Median of `runs`.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { freePort } from './processes.js'

export interface NpmStartFigures {
  /** Milliseconds of each start, fresh data directory. */
  readonly freshMs: readonly number[]
  /** Milliseconds of each start, data directory initialised by an earlier start. */
  readonly initialisedMs: readonly number[]
}

async function startOnce(root: string, dataDir: string, env: Record<string, string>): Promise<number> {
  const port = await freePort()
  const start = performance.now()
  const child = spawn('npm', ['start', '--silent'], {
    cwd: root,
    env: { ...process.env, ...env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_FORMAT: 'json' },
    stdio: 'ignore',
    detached: true, // its own process group: npm, sh and node stop together
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`npm start ended with ${child.exitCode} before answering`)
      const healthy = await fetch(`http://127.0.0.1:${port}/api/health`).then(
        (r) => r.ok,
        () => false,
      )
      if (healthy) return performance.now() - start
      await sleep(20)
    }
  } finally {
    if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM')
    await exited
  }
}

export async function measureNpmStart(
  root: string,
  env: Record<string, string>,
  runs: number,
): Promise<NpmStartFigures> {
  const freshMs: number[] = []
  const initialisedMs: number[] = []
  for (let i = 0; i < runs; i++) {
    const dataDir = mkdtempSync(join(tmpdir(), 'records-bench-start-'))
    try {
      freshMs.push(await startOnce(root, dataDir, env))
      initialisedMs.push(await startOnce(root, dataDir, env))
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }
  return { freshMs, initialisedMs }
}
