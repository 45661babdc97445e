// `records <args>` in a child process, as an operator would run it next to a running service:
// compiled in dist/ when that is current (distIsCurrent), else the TypeScript source through the
// test's own loader; no build needed.
import { spawn } from 'node:child_process'
import { childExecArgv, distIsCurrent, WITHOUT_TS_NODE } from './child-env.js'

const ROOT = new URL('../../', import.meta.url).pathname

export interface CliRun {
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
}

export function runRecords(env: Record<string, string>, rest: readonly string[]): Promise<CliRun> {
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
