// `records <args>` as an operator would run it next to a running service, with the given
// environment on top of the test's and the checkout as its working directory: runRecords through
// runCli in the test's own process (cli-in-process.ts); spawnRecords as a child process, where a
// test is about another process, compiled in dist/ when that is current (distIsCurrent), else
// the TypeScript source through the test's own loader.
import { spawn } from 'node:child_process'
import { childExecArgv, distIsCurrent, WITHOUT_TS_NODE } from './child-env.js'
import { runCliInProcess, type CliRun } from './cli-in-process.js'

export type { CliRun }

const ROOT = new URL('../../', import.meta.url).pathname

export function runRecords(env: Record<string, string>, rest: readonly string[]): Promise<CliRun> {
  return runCliInProcess(rest, { cwd: ROOT, env: { ...process.env, ...env } })
}

export function spawnRecords(env: Record<string, string>, rest: readonly string[]): Promise<CliRun> {
  const args = distIsCurrent()
    ? [`${ROOT}dist/src/cli/main.js`, ...rest]
    : [...childExecArgv(), `${ROOT}src/cli/main.ts`, ...rest]
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...WITHOUT_TS_NODE, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })))
}
