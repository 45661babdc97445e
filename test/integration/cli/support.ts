// Runs `records` against a real SQLite database in a temp dir: in the test's process through the
// function the binary runs (runCli), or as the real binary (bin/records.js -> dist, built by
// `npm test` before tap) in a child process where the process itself is under test.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import type { Test } from 'tap'
import { openService, type OpenService } from '../../../src/app/service.js'
import { loadSettings } from '../../../src/app/settings.js'
import { ADMIN, REPO_MODULES } from '../../helpers/api.js'
import { runCliInProcess } from '../../helpers/cli-in-process.js'

export const ROOT = new URL('../../../', import.meta.url).pathname
export const BIN = join(ROOT, 'bin/records.js')

export interface Run {
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
}

export interface RunOptions {
  readonly input?: string
  readonly env?: Record<string, string>
}

export interface Cli {
  readonly dataDir: string
  readonly env: Record<string, string>
  /**
   * `records <args>` through runCli in this process: the same parsing, commands, output and exit
   * status, without a node start for each. `records serve` always runs as a process: it is one.
   */
  run(args: readonly string[], options?: RunOptions): Promise<Run>
  /** `records <args>` as a child process: for what only a process has (its exit, its own environment). */
  spawn(args: readonly string[], options?: RunOptions): Promise<Run>
  /** The database file opened read-only, for what the API never shows (ciphertext, archives). */
  raw<T>(work: (db: BetterSqlite3.Database) => T): T
  /** The service (as `npm start` opens it) and an ADMIN token, for API checks; closed before returning. */
  withService<T>(work: (service: OpenService, token: string) => Promise<T>, modulesFile?: string): Promise<T>
}

export function createCli(t: Test, env: Record<string, string> = {}): Cli {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-cli-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const base = {
    DATA_DIR: dataDir,
    MODULES_FILE: REPO_MODULES,
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
    ...env,
  }
  const envOf = (options: RunOptions) => ({
    ...process.env,
    RECORDS_ENCRYPTION_KEY: '',
    RECORDS_ENCRYPTION_OLD_KEYS: '',
    ...base,
    ...options.env,
  })
  const inputOf = (options: RunOptions) => (options.input === undefined ? {} : { input: options.input })
  const cli: Cli = {
    dataDir,
    env: base,
    run(args, options = {}) {
      if (args[0] === 'serve') return cli.spawn(args, options)
      return runCliInProcess(args, { cwd: dataDir, env: envOf(options), ...inputOf(options) })
    },
    spawn(args, options = {}) {
      const child = spawn(process.execPath, [BIN, ...args], {
        cwd: dataDir,
        env: envOf(options),
        stdio: ['pipe', 'pipe', 'pipe'],
      })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
      child.stdin.end(options.input ?? '')
      return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })))
    },
    raw(work) {
      const db = new BetterSqlite3(join(dataDir, 'records.db'), { readonly: true })
      try {
        return work(db)
      } finally {
        db.close()
      }
    },
    async withService(work, modulesFile = base.MODULES_FILE) {
      const settings = loadSettings({ ...base, MODULES_FILE: modulesFile, RATE_LIMIT_IP_PER_MINUTE: '100000' })
      const service = await openService(settings)
      try {
        const login = await service.app.inject({
          method: 'POST',
          url: '/api/auth/login',
          payload: { username: ADMIN.username, password: ADMIN.password },
        })
        // No token when the database has no such admin (its first account came from the CLI).
        return await work(service, login.statusCode === 200 ? (login.json().data.token as string) : '')
      } finally {
        await service.close()
      }
    },
  }
  return cli
}

/** A failure is one line (or a list of problems), never a stack trace. */
export const noStack = (run: Run): boolean => !/\n\s+at /.test(run.stderr) && !/\n\s+at /.test(run.stdout)

export async function api(service: OpenService, token: string, method: string, url: string, body?: unknown) {
  const response = await service.app.inject({
    method: method as 'GET',
    url: `/api${url}`,
    headers: { authorization: `Bearer ${token}` },
    ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
  })
  return { status: response.statusCode, body: response.json() }
}

/** What every `records export` must say (D29): a disclosure names its recipient and reason. */
export const DISCLOSURE = ['--destinatario', 'Juzgado de Instrucción n.º 2', '--motivo', 'Diligencias previas 123/2026']
