// `records <args>` run from the TypeScript source in a child process (the test's own loader),
// as an operator would run it next to a running service; no build needed.
import { spawn } from 'node:child_process'
import { childExecArgv, WITHOUT_TS_NODE } from './child-env.js'

const ROOT = new URL('../../', import.meta.url).pathname

export interface CliRun {
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
}

export function runRecords(env: Record<string, string>, args: readonly string[]): Promise<CliRun> {
  const child = spawn(process.execPath, [...childExecArgv(), `${ROOT}src/cli/main.ts`, ...args], {
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
