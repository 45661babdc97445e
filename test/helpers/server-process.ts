// `npm start`'s entry point as a real child process on a random port (the multi-instance tests).
import { spawn, type ChildProcess } from 'node:child_process'
import type { Test } from 'tap'
import { WITHOUT_TS_NODE } from './child-env.js'

const ROOT = new URL('../../', import.meta.url).pathname

export interface ServerProcess {
  readonly base: string
  readonly child: ChildProcess
  /** Resolves with the exit code once the process is gone (after a kill, say). */
  readonly exited: Promise<number | null>
  output(): string
  stop(): Promise<number | null>
}

/** Starts `src/app/server.ts` with `env` and waits for "Servicio disponible en ..."; killed at teardown. */
export async function startServerProcess(t: Test, env: Record<string, string>): Promise<ServerProcess> {
  // The test's own loader (process.execArgv) lets the child run the TypeScript source.
  const child = spawn(process.execPath, [...process.execArgv, `${ROOT}src/app/server.ts`], {
    cwd: ROOT,
    env: { ...process.env, ...WITHOUT_TS_NODE, PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  t.teardown(() => void child.kill('SIGKILL'))
  const deadline = Date.now() + 90_000
  let base: string | undefined
  while (base === undefined && Date.now() < deadline && child.exitCode === null) {
    base = /Servicio disponible en (http:\/\/[^ "]+)/.exec(output)?.[1]
    if (base === undefined) await new Promise((r) => setTimeout(r, 100))
  }
  if (base === undefined) throw new Error(`the server did not start:\n${output}`)
  return {
    base,
    child,
    exited,
    output: () => output,
    async stop() {
      child.kill('SIGTERM')
      return exited
    },
  }
}
