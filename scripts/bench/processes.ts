// Child processes of the benchmark: the service (`node dist/src/app/server.js` with the flags of
// `npm start`, exactly what it runs) and the bare stack, each on a free port of its own. Children, not
// in-process apps: the load generator must not share their event loop, and the service's
// peak RSS must be its own.
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { performance } from 'node:perf_hooks'

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

export interface Child {
  readonly process: ChildProcess
  readonly port: number
  /** Milliseconds from spawn to the first 200 of `readyPath`. */
  readonly startupMs: number
  /** Peak resident set (VmHWM) so far, in MiB; undefined off Linux. */
  peakRssMiB(): number | undefined
  /** CPU seconds (user + system) the process has used so far; undefined off Linux. */
  cpuSeconds(): number | undefined
  stop(): Promise<void>
}

/** USER_HZ: the unit of /proc/<pid>/stat times, 100 on every Linux the bench will meet. */
const CLOCK_TICKS = 100
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export interface ChildOptions {
  /** Arguments after the script. */
  readonly args?: readonly string[]
  readonly cwd?: string
  /** Runs this command line instead of `node <nodeArgs> <script> <args>` (npm start), in its own process group. */
  readonly command?: readonly string[]
}

export async function startChild(
  script: string,
  env: Record<string, string>,
  readyPath: string,
  nodeArgs: readonly string[] = [],
  options: ChildOptions = {},
): Promise<Child> {
  const port = await freePort()
  const started = performance.now()
  const [file, ...argv] = options.command ?? [process.execPath, ...nodeArgs, script, ...(options.args ?? [])]
  const child = spawn(file as string, argv, {
    env: { ...process.env, ...env, PORT: String(port), PLT_SERVER_PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'pipe'],
    cwd: options.cwd,
    detached: options.command !== undefined,
  })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}: ${stderr}`)
    try {
      const response = await fetch(`http://127.0.0.1:${port}${readyPath}`)
      if (response.status === 200) break
    } catch {
      // not listening yet
    }
    if (performance.now() - started > 60_000) throw new Error(`${script} not healthy after 60 s: ${stderr}`)
    await sleep(5)
  }
  const startupMs = performance.now() - started
  return {
    process: child,
    port,
    startupMs,
    peakRssMiB() {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8')
        const kb = /VmHWM:\s+(\d+) kB/.exec(status)?.[1]
        return kb === undefined ? undefined : Number(kb) / 1024
      } catch {
        return undefined
      }
    },
    cpuSeconds() {
      try {
        // Fields 14 and 15 of /proc/<pid>/stat, after the parenthesised command name.
        const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
        return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS
      } catch {
        return undefined
      }
    },
    async stop() {
      if (child.exitCode === null) {
        // A command line (npm start) runs the service as its grandchild: signal the whole group.
        if (options.command !== undefined && child.pid !== undefined) process.kill(-child.pid, 'SIGTERM')
        else child.kill('SIGTERM')
      }
      await exited
    },
  }
}
