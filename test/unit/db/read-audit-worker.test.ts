// The read audit's writer thread (src/db/audit/read-audit-writers.ts) finds its module and writes
// there: a batch lands in `_audit` without the in-process fallback, which would take over silently
// should the thread's file not be found or fail to load. From the sources (the module beside the
// writers') and as the built service and the tests' services start it: the bundle `npm run build`
// makes (scripts/bundle.mjs), with no node options. On a real SQLite file.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import type { AuditEvent } from '../../../src/db/audit/log.js'
import { workerWriter, type WorkerScript } from '../../../src/db/audit/read-audit-writers.js'
import { createSqliteDatabase } from '../../../src/db/dialects/sqlite.js'
import { ensureSystemTables, SYSTEM_TABLES } from '../../../src/db/system-tables.js'
import { builtReadAuditWorker } from '../../helpers/child-env.js'

const built = builtReadAuditWorker()

async function writtenByTheThread(t: Test, script?: WorkerScript) {
  const dir = mkdtempSync(join(tmpdir(), 'records-audit-worker-'))
  const file = join(dir, 'records.db')
  const database = createSqliteDatabase({ file })
  await ensureSystemTables(database)
  const fellBack: number[] = []
  const writer = workerWriter(
    { file },
    {
      write: async (events) => void fellBack.push(events.length),
      close: async () => undefined,
    },
    script,
  )
  t.teardown(async () => {
    await writer.close()
    await database.close()
    rmSync(dir, { recursive: true, force: true })
  })
  const event: AuditEvent = {
    userId: 'USR-2026-00001',
    action: 'consultar',
    module: 'denuncias',
    recordId: 'DEN-2026-00001',
    version: 1,
    recordHash: null,
    fields: ['denunciante_nombre'],
  }
  await writer.write([event, { ...event, recordId: 'DEN-2026-00002' }], '2026-11-27 12:00:00.000')
  t.same(fellBack, [], 'the fallback wrote nothing')
  const rows = await database.db
    .selectFrom(SYSTEM_TABLES.audit)
    .select(['record_id', 'action'])
    .orderBy('seq')
    .execute()
  t.same(
    rows,
    [
      { record_id: 'DEN-2026-00001', action: 'consultar' },
      { record_id: 'DEN-2026-00002', action: 'consultar' },
    ],
    'both entries in the chain, written by the thread',
  )
}

t.test('a batch is written by the worker thread, not by the fallback', (t) => writtenByTheThread(t))

t.test(
  'the bundled worker thread, started with no node options, writes a batch too',
  {
    skip:
      built === undefined
        ? 'NO CURRENT BUILD: run npm run build (npm test does) to test the bundled writer thread'
        : false,
  },
  (t) => writtenByTheThread(t, built),
)
