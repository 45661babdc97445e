// The consultation log's writer thread as the built service starts it: the bundle `npm run build`
// makes of it (scripts/bundle.mjs), started without any node options, as the tests' services do
// (test/helpers/api.ts). Should the bundle fail to load or to write, the log falls back to the
// main thread and every other test still passes: this one has no fallback to fall to.
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import t from 'tap'
import type { AuditEvent } from '../../../src/db/audit/log.js'
import { workerWriter, type Writer } from '../../../src/db/audit/read-audit-writers.js'
import { createSqliteDatabase } from '../../../src/db/dialects/sqlite.js'
import { ensureSystemTables } from '../../../src/db/system-tables.js'
import { distIsCurrent } from '../../helpers/child-env.js'

const BUNDLE = new URL('../../../dist/src/db/audit/read-audit-worker.bundle.mjs', import.meta.url)
const built = distIsCurrent() && statSync(BUNDLE, { throwIfNoEntry: false }) !== undefined

const read: AuditEvent = {
  userId: 'USR-2026-00001',
  action: 'consultar',
  module: 'denuncias',
  recordId: 'DEN-2026-00001',
  version: 1,
  recordHash: null,
  fields: ['denunciante_dni'],
  requestId: 'req-1',
  motivo: 'Diligencias 1/2026',
}

const noFallback: Writer = {
  write: () => Promise.reject(new Error('the batch went to the main thread: the bundled writer failed')),
  close: async () => undefined,
}

t.test(
  'the bundled writer thread appends a consultation batch to the chain',
  { skip: built ? false : 'NO CURRENT BUILD: run npm run build (npm test does) to test the bundled writer thread' },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'records-worker-bundle-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    const file = join(dir, 'records.db')
    const database = createSqliteDatabase({ file })
    await ensureSystemTables(database)
    await database.close()

    const writer = workerWriter({ file }, noFallback, { url: BUNDLE, execArgv: [] })
    t.teardown(() => writer.close())
    await writer.write([read], '2026-11-28T10:00:00.000Z')

    const db = new BetterSqlite3(file, { readonly: true })
    t.teardown(() => db.close())
    const row = db.prepare('select action, record_id, user_id from _audit').get()
    t.same(row, { action: 'consultar', record_id: 'DEN-2026-00001', user_id: 'USR-2026-00001' })
  },
)
