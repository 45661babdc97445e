// The read audit's backlog is bounded. Past `maxBacklog` entries recorded
// and not yet written, record() hands the read a promise that settles once the writer caught
// up: reads slow down to the writer's pace, entries are never dropped and memory does not grow.
// On a real SQLite file (the writer thread) and, in the PostgreSQL pass, on PostgreSQL.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import type { AuditEvent } from '../../../src/db/audit/log.js'
import { createDatabase } from '../../../src/db/connect.js'
import { ensureSystemTables } from '../../../src/db/system-tables.js'
import { createReadAuditLog } from '../../../src/db/audit/read-audit.js'
import { databaseEnv } from '../../helpers/api.js'

const reads = (from: number, count: number): AuditEvent[] =>
  Array.from({ length: count }, (_, i) => ({
    userId: 'USR-2026-00001',
    action: 'consultar',
    module: 'denuncias',
    recordId: `DEN-2026-${String(from + i).padStart(5, '0')}`,
    version: 1,
    recordHash: null,
    fields: ['denunciante_dni'],
  }))

t.test('past maxBacklog unwritten entries a read waits for the writer; every entry is written', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-backlog-'))
  const database = await createDatabase(
    (await databaseEnv(dataDir))['DATABASE_URL'] ?? `sqlite:${join(dataDir, 'records.db')}`,
  )
  await ensureSystemTables(database)
  const errors: unknown[] = []
  const log = createReadAuditLog({
    database,
    timezone: 'Europe/Madrid',
    clock: () => new Date(),
    maxDelayMs: 60_000,
    maxBatch: 10,
    maxBacklog: 20,
    onError: (error) => errors.push(error),
  })
  t.teardown(async () => {
    await log.close()
    await database.close()
    rmSync(dataDir, { recursive: true, force: true })
  })
  const written = async () =>
    (await database.db.selectFrom('_audit').select('record_id').where('action', '=', 'consultar').execute()).length

  t.equal(log.record(reads(1, 10)), undefined, 'within the bound: nothing to wait for (a batch of 10 is on its way)')
  const waited = log.record(reads(11, 15))
  t.ok(waited instanceof Promise, '25 unwritten entries > 20: the read is asked to wait')
  await waited
  t.ok((await written()) >= 10, 'it goes on once a batch is written')
  t.equal(log.record(reads(26, 1)), undefined, 'back within the bound')
  await log.flush()
  t.equal(await written(), 26, 'no entry dropped')
  t.same(errors, [])
})
