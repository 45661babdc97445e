// F1 (second outside audit): one consultation entry the database refuses used to be put back in
// front of every later entry for ever, so nothing more was logged. Now the writer isolates it,
// writes every other entry, reports it (request id, never its content) and counts it; a writer that
// cannot write at all keeps every entry and writes them once it can. On a real SQLite file (the
// writer thread) and, in the PostgreSQL pass, on PostgreSQL, through the writer's own API.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import pg from 'pg'
import t, { type Test } from 'tap'
import { auditEntryFromRow, GENESIS_HASH, hashAuditEntry, type AuditEvent } from '../../../src/db/audit/log.js'
import { createDatabase } from '../../../src/db/connect.js'
import type { Database } from '../../../src/db/database.js'
import { createSqliteDatabase } from '../../../src/db/dialects/sqlite.js'
import { ensureSystemTables } from '../../../src/db/system-tables.js'
import { createReadAuditLog, type ReadAuditOptions, type RefusedEntry } from '../../../src/db/audit/read-audit.js'
import { databaseEnv, ON_POSTGRES } from '../../helpers/api.js'
import { ADMIN_URL, databaseFor, urlOf } from '../../helpers/postgres.js'

const read = (n: number, extra: Partial<AuditEvent> = {}): AuditEvent => ({
  userId: 'USR-2026-00001',
  action: 'consultar',
  module: 'denuncias',
  recordId: `DEN-2026-${String(n).padStart(5, '0')}`,
  version: 1,
  recordHash: null,
  fields: ['denunciante_dni'],
  requestId: `req-${n}`,
  motivo: 'Diligencias 1/2026',
  ...extra,
})
/** An entry that gets past every check before the writer and that the database refuses (NOT NULL). */
const refusedEverywhere = (n: number): AuditEvent => read(n, { action: null as never, motivo: 'DNI 12345678Z' })
/** What PostgreSQL refused in F1: a NUL in a text column (SQLite stores it). */
const nulMotivo = (n: number): AuditEvent => read(n, { motivo: 'a\u0000b' })

async function openDatabase(t: Test, dataDir: string): Promise<Database> {
  const url = (await databaseEnv(dataDir))['DATABASE_URL'] ?? `sqlite:${join(dataDir, 'records.db')}`
  const database = await createDatabase(url)
  await ensureSystemTables(database)
  t.teardown(() => database.close())
  return database
}

function startLog(t: Test, database: Database, extra: Partial<ReadAuditOptions> = {}) {
  const errors: unknown[] = []
  const refused: RefusedEntry[] = []
  const log = createReadAuditLog({
    database,
    timezone: 'Europe/Madrid',
    clock: () => new Date(),
    maxDelayMs: 60_000,
    onError: (error) => errors.push(error),
    onRefused: (entry) => refused.push(entry),
    ...extra,
  })
  t.teardown(() => log.close())
  return { log, errors, refused }
}

const tempDir = (t: Test) => {
  const dir = mkdtempSync(join(tmpdir(), 'records-isolation-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

async function writtenIds(database: Database): Promise<string[]> {
  const rows = await database.db.selectFrom('_audit').selectAll().orderBy('seq').execute()
  let prev = GENESIS_HASH
  for (const row of rows) {
    const entry = auditEntryFromRow(row)
    if (entry.prev_hash !== prev || hashAuditEntry(entry) !== entry.hash)
      throw new Error(`chain broken at ${entry.seq}`)
    prev = entry.hash
  }
  return rows.map((r) => String(r['record_id']))
}

t.test('F1: an entry the database refuses is isolated and reported; every other entry is written', async (t) => {
  const database = await openDatabase(t, tempDir(t))
  const { log, errors, refused } = startLog(t, database)
  const bad = ON_POSTGRES ? [refusedEverywhere(3), nulMotivo(6)] : [refusedEverywhere(3), refusedEverywhere(6)]
  log.record([read(1), read(2), bad[0]!, read(4), read(5), bad[1]!, read(7)])
  await log.flush()
  t.same(
    await writtenIds(database),
    ['DEN-2026-00001', 'DEN-2026-00002', 'DEN-2026-00004', 'DEN-2026-00005', 'DEN-2026-00007'],
    'every good entry written, in order, and the chain verifies',
  )
  t.match(refused, [{ requestId: 'req-3', action: null, module: 'denuncias' }, { requestId: 'req-6' }])
  t.match(refused[0]!.code, ON_POSTGRES ? /^23502$/ : /^SQLITE_CONSTRAINT_NOTNULL$/)
  if (ON_POSTGRES) t.equal(refused[1]!.code, '22021', 'the NUL: character_not_in_repertoire')
  t.notOk(JSON.stringify(refused).includes('12345678Z'), 'the report never carries the entry content')
  t.same(log.status(), { unwritten: 0, refused: 2 }, 'counted; the writer is not failing')
  t.same(errors, [], 'no writer error: the writer can write')

  // The poison entry first, alone in its flush, then later entries: never in front of them again.
  log.record([refusedEverywhere(8)])
  await log.flush()
  log.record([read(9), read(10)])
  await log.flush()
  t.same((await writtenIds(database)).slice(-2), ['DEN-2026-00009', 'DEN-2026-00010'], 'later entries written')
  t.same(log.status(), { unwritten: 0, refused: 3 })
})

/** A writer that cannot write, for real: SQLite's write lock held by another connection; PostgreSQL: INSERT revoked. */
async function blockWriter(t: Test, dataDir: string): Promise<{ database: Database; unblock: () => Promise<void> }> {
  if (!ON_POSTGRES) {
    const file = join(dataDir, 'records.db')
    const database = createSqliteDatabase({ file, busyTimeoutMs: 50 })
    await ensureSystemTables(database)
    t.teardown(() => database.close())
    const other = new BetterSqlite3(file)
    other.exec('begin immediate')
    return { database, unblock: async () => void (other.exec('commit'), other.close()) }
  }
  const name = await databaseFor(dataDir)
  const role = `${name}_svc`
  const admin = new pg.Client({ connectionString: urlOf(name) })
  await admin.connect()
  await ensureSystemTables(await openDatabase(t, dataDir))
  await admin.query(`create role ${role} login`)
  await admin.query(`grant all on all tables in schema public to ${role}`)
  const url = new URL(ADMIN_URL)
  url.username = role
  url.pathname = `/${name}`
  const database = await createDatabase(url.toString())
  t.teardown(async () => {
    await database.close()
    await admin.query(`drop owned by ${role}`)
    await admin.query(`drop role ${role}`)
    await admin.end()
  })
  await admin.query(`revoke insert on _audit from ${role}`)
  return { database, unblock: async () => void (await admin.query(`grant insert on _audit to ${role}`)) }
}

t.test('F1, F12: a writer that cannot write keeps every entry, reports it, and writes them later', async (t) => {
  const dataDir = tempDir(t)
  const { database, unblock } = await blockWriter(t, dataDir)
  const { log, errors, refused } = startLog(t, database, { worker: false })
  log.record([read(1), read(2), read(3)])
  await log.flush()
  const status = log.status()
  t.match(status, { unwritten: 3, refused: 0, failing: { code: ON_POSTGRES ? '42501' : 'SQLITE_BUSY' } })
  t.equal(errors.length, 1, 'the writer error is reported')
  t.same(refused, [], 'no entry blamed for the writer')
  log.record([read(4)])
  await log.flush()
  t.equal(errors.length, 1, 'reported once, not once per flush')
  t.equal(log.status().failing?.since, status.failing?.since, 'failing since the first failure')
  await unblock()
  await log.flush()
  t.same(log.status(), { unwritten: 0, refused: 0 }, 'the writer recovered')
  t.same(
    await writtenIds(database),
    ['DEN-2026-00001', 'DEN-2026-00002', 'DEN-2026-00003', 'DEN-2026-00004'],
    'nothing lost, in order',
  )
})

t.test('F1, D29: while the writer cannot write, a full backlog refuses reads (503) instead of growing', async (t) => {
  const dataDir = tempDir(t)
  const { database, unblock } = await blockWriter(t, dataDir)
  const { log } = startLog(t, database, { worker: false, maxBacklog: 3, maxBatch: 100 })
  t.equal(log.record([read(1), read(2)]), undefined, 'below the backlog: recorded')
  await log.flush()
  t.ok(log.status().failing, 'the writer is failing')
  void log.record([read(3)]) // the backlog is full now: this one is recorded, the next refused
  t.throws(
    () => log.record([read(4)]),
    { statusCode: 503, code: 'UNAVAILABLE' },
    'a read that cannot be logged is refused',
  )
  t.equal(log.status().unwritten, 3, 'the refused read left nothing behind: memory stops growing')
  t.doesNotThrow(() => log.record([read(5)], true), 'the answer to a committed write is recorded anyway')
  await unblock()
  await log.flush()
  t.equal(log.record([read(6)]), undefined, 'recovered: reads are logged again')
  await log.flush()
  t.same(
    await writtenIds(database),
    ['DEN-2026-00001', 'DEN-2026-00002', 'DEN-2026-00003', 'DEN-2026-00005', 'DEN-2026-00006'],
    'every recorded entry written, in order; the refused read has none',
  )
})
