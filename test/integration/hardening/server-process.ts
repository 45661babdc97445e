// The real server (src/app/server.ts, `npm start`'s entry point) as a child process on a data
// directory, for the crash and multi-process suites.
import type { Test } from 'tap'
import { ADMIN, REPO_MODULES } from '../../helpers/api.js'
import { databaseFor, ON_POSTGRES, urlOf } from '../../helpers/postgres.js'
import { startServerProcess, type ServerProcess as Process } from '../../helpers/server-process.js'

export interface ServerProcess extends Process {
  /** POST /auth/login as the first superadmin. */
  login(): Promise<string>
}

/**
 * The server on `dataDir` with the first superadmin and rate limits out of the way; in the
 * PostgreSQL pass, on that directory's own database (the same one on every restart).
 */
export async function startServer(t: Test, dataDir: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const server = await startServerProcess(t, {
    env: {
      DATA_DIR: dataDir,
      MODULES_FILE: REPO_MODULES,
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      RATE_LIMIT_IP_PER_MINUTE: '1000000',
      RATE_LIMIT_TOKEN_PER_HOUR: '1000000',
      ...(ON_POSTGRES ? { DATABASE_URL: urlOf(await databaseFor(dataDir)) } : {}),
      ...env,
    },
  })
  return {
    ...server,
    async login() {
      const reply = await fetch(`${server.base}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(ADMIN),
      })
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
export async function call(
  base: string,
  method: string,
  path: string,
  token: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const reply = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await reply.text()
  return { status: reply.status, headers: reply.headers, body: text === '' ? undefined : JSON.parse(text) }
}
