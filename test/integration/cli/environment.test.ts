// The CLI opens the engine the service opens (src/app/engine.ts). Before, the
// CLI ignored DATABASE_POOL_SIZE and dropped the errors of writing its read-audit entries.
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { sql } from 'kysely'
import t from 'tap'
import { openEnvironment } from '../../../src/cli/environment.js'
import type { CommandInput } from '../../../src/cli/command.js'
import { REPO_MODULES, VALID } from '../../helpers/api.js'
import { createTestDatabase, requirePostgres, urlOf } from '../../helpers/postgres.js'
import { api, createCli, DISCLOSURE, noStack } from './support.js'

const reachable = await requirePostgres(t, "the CLI's PostgreSQL pool size was not tested")

function inputWith(env: Record<string, string>): CommandInput {
  return {
    values: {},
    positionals: [],
    env,
    cwd: process.cwd(),
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
  }
}

t.test(
  'the CLI opens PostgreSQL with DATABASE_POOL_SIZE connections, as the service does',
  { skip: reachable ? false : 'PostgreSQL is not reachable' },
  async (t) => {
    const cli = createCli(t)
    const url = urlOf(await createTestDatabase())
    for (const size of [2, 4]) {
      const env = await openEnvironment(
        inputWith({
          ...cli.env,
          DATABASE_URL: url,
          DATABASE_POOL_SIZE: String(size),
          MODULES_FILE: REPO_MODULES,
        }),
      )
      try {
        // Eight queries at once, each holding its connection for a moment: the backends that
        // answer are the pool's connections.
        const pids = await Promise.all(
          Array.from(
            { length: 8 },
            async () =>
              (await sql<{ pid: number }>`select pg_backend_pid() as pid, pg_sleep(0.2)`.execute(env.database.db))
                .rows[0]?.pid,
          ),
        )
        t.equal(new Set(pids).size, size, `DATABASE_POOL_SIZE=${size}: ${size} connections`)
      } finally {
        await env.close()
      }
    }
  },
)

t.test('an export whose comunicar entry cannot be written fails the command', async (t) => {
  const cli = createCli(t)
  await cli.withService(async (service, token) => {
    const created = await api(service, token, 'POST', '/denuncias', {
      ...VALID['denuncias']!(),
      denunciante_dni: '12345678Z',
    })
    t.equal(created.status, 201, 'a record with an encrypted value')
  })
  const db = new BetterSqlite3(join(cli.dataDir, 'records.db'))
  // The audit trail refuses disclosure entries (a full disk, a broken table).
  db.exec(`create trigger refuse_disclosures before insert on _audit when new.action = 'comunicar'
           begin select raise(abort, 'disco lleno'); end`)
  db.close()

  const run = await cli.run(['export', ...DISCLOSURE, 'denuncias', '--decrypt', '--format', 'jsonl'])
  t.equal(run.status, 1, 'the export fails: the disclosure left no trace in the audit trail')
  t.match(run.stderr, /disco lleno/, 'the write error is said')
  t.ok(noStack(run), 'one line, no stack')
})

t.test('a setting the engine cannot use is one line, records: <reason>, exit status 1', async (t) => {
  const cli = createCli(t)
  const run = await cli.run(['user', 'list'], { env: { DATABASE_URL: 'mysql://localhost/records' } })
  t.equal(run.status, 1)
  t.equal(
    run.stderr,
    "records: DATABASE_URL no reconocida: use sqlite:<ruta> o postgres://... (recibido 'mysql:...')\n",
  )
  t.ok(noStack(run))
})
