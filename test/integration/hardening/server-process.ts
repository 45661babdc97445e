// The real server (src/server.ts, `npm start`'s entry point) as a child process on a data
// directory, for the crash and multi-process suites (issue #6.3, #6.4).
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import type { Test } from 'tap'
import { ADMIN, REPO_MODULES } from '../../helpers/api.js'

const ROOT = new URL('../../../', import.meta.url).pathname

export interface ServerProcess {
  /** `http://127.0.0.1:<port>/api` */
  readonly base: string
  readonly child: ChildProcess
  readonly exited: Promise<number | null>
  output(): string
  /** POST /auth/login as the first superadmin. */
  login(): Promise<string>
}

export async function startServer(t: Test, dataDir: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  // The test's own loader (process.execArgv) lets the child run the TypeScript source.
  const child = spawn(process.execPath, [...process.execArgv, join(ROOT, 'src/server.ts')], {
    cwd: ROOT,
    env: {
      ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info', MODULES_FILE: REPO_MODULES,
      ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password,
      RATE_LIMIT_IP_PER_MINUTE: '1000000', RATE_LIMIT_TOKEN_PER_HOUR: '1000000', ...env,
    },
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
    if (base === undefined) await new Promise((r) => setTimeout(r, 50))
  }
  if (base === undefined) throw new Error(`the server did not start:\n${output}`)
  const url = base
  return {
    base: url,
    child,
    exited,
    output: () => output,
    async login() {
      const reply = await fetch(`${url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) })
      if (reply.status !== 200) throw new Error(`login: ${reply.status}`)
      return ((await reply.json()) as { data: { token: string } }).data.token
    },
  }
}

export interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly body: any
}

/** One JSON request over a real socket. Throws when the connection fails (the server died). */
export async function call(base: string, method: string, path: string, token: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const reply = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await reply.text()
  return { status: reply.status, headers: reply.headers, body: text === '' ? undefined : JSON.parse(text) }
}
