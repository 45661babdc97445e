// The service as a real child process on a random port, the one way the suite starts it:
// `npm start`'s src/app/server.ts (compiled in dist/ when current, else the TypeScript source with
// the test's own loader), or from dist/ as installed (`bin/records.js serve`, `npm run build`
// first). watchOutput is its waiting part, for children started another way
// (test/integration/process/console.test.ts's pty).
import { spawn, type ChildProcess } from 'node:child_process'
import type { Test } from 'tap'
import { childExecArgv, distIsCurrent, WITHOUT_TS_NODE } from './child-env.js'

const ROOT = new URL('../../', import.meta.url).pathname
const READY = /Servicio disponible en (http:\/\/[^ "]+)/
const DEFAULT_WAIT_MS = 90_000

export interface WatchedOutput {
  /** Everything the child wrote to stdout and stderr so far, in arrival order. */
  text(): string
  /**
   * Resolves on the 'data' event that makes the output match `pattern`; with the last attempt's
   * null after `ms`, or once the child's output has ended without a match.
   */
  until(pattern: RegExp, ms?: number): Promise<RegExpExecArray | null>
}

/** Collects a child's stdout and stderr (both piped) and wakes waiters on each chunk. */
export function watchOutput(child: ChildProcess): WatchedOutput {
  let text = ''
  let ended = false
  const waiters = new Set<() => void>()
  const wake = () => waiters.forEach((waiter) => waiter())
  for (const stream of [child.stdout, child.stderr]) {
    stream?.setEncoding('utf8') // a character split between two chunks stays whole
    stream?.on('data', (chunk: string) => {
      text += chunk
      wake()
    })
  }
  // 'close' comes after the last chunk of both streams: nothing more can match.
  child.on('close', () => {
    ended = true
    wake()
  })
  return {
    text: () => text,
    until(pattern, ms = DEFAULT_WAIT_MS) {
      return new Promise((resolve) => {
        const settle = (match: RegExpExecArray | null) => {
          clearTimeout(timer)
          waiters.delete(check)
          resolve(match)
        }
        const check = () => {
          const match = pattern.exec(text)
          if (match !== null || ended) settle(match)
        }
        const timer = setTimeout(() => settle(pattern.exec(text)), ms)
        waiters.add(check)
        check()
      })
    },
  }
}

export interface ServerProcessOptions {
  /** `source` (the default): src/app/server.ts (compiled, when dist/ is current); `dist`: `bin/records.js serve`. */
  readonly entry?: 'source' | 'dist'
  /** Over the test's own environment, PORT=0 and LOG_LEVEL=info. */
  readonly env?: Record<string, string>
  /** The child's working directory; the checkout's root by default. */
  readonly cwd?: string
  /** Node options before the entry (test/helpers/fillable-disk.ts's IGNORE_SIGXFSZ, say). */
  readonly nodeArgs?: readonly string[]
}

export interface ServerProcess {
  /** The API's base URL as the service announced it (`http://127.0.0.1:<port>/api`). */
  readonly base: string
  readonly child: ChildProcess
  /**
   * Resolves with the exit code once the process is gone (after a kill, say) and all it wrote has
   * arrived ('close', not 'exit'); `child.signalCode` is set by then.
   */
  readonly exited: Promise<number | null>
  output(): string
  until(pattern: RegExp, ms?: number): Promise<RegExpExecArray | null>
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>
}

/** Starts the service and waits for "Servicio disponible en <url>"; SIGKILLed at teardown if still running. */
export async function startServerProcess(t: Test, options: ServerProcessOptions = {}): Promise<ServerProcess> {
  // `source`: src/app/server.ts compiled in dist/ when that is current, else through the test's
  // own loader (childExecArgv: process.execArgv less tap's preloads a child never needs).
  const source = (options.entry ?? 'source') === 'source'
  const entry = !source
    ? [`${ROOT}bin/records.js`, 'serve']
    : distIsCurrent()
      ? [`${ROOT}dist/src/app/server.js`]
      : [...childExecArgv(), `${ROOT}src/app/server.ts`]
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...entry], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, ...(source ? WITHOUT_TS_NODE : {}), PORT: '0', LOG_LEVEL: 'info', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const output = watchOutput(child)
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
  t.teardown(() => void child.kill('SIGKILL'))
  const base = (await output.until(READY))?.[1]
  if (base === undefined) throw new Error(`the server did not start:\n${output.text()}`)
  return {
    base,
    child,
    exited,
    output: output.text,
    until: output.until,
    async stop() {
      child.kill('SIGTERM')
      return exited
    },
  }
}
