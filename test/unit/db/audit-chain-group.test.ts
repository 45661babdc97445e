// D18 with D48/D49: in a group of record writes the audit chain's tail is read once and handed
// from write to write; a write undone to its savepoint takes its entry back with it, and a
// group run again starts from the tail on disk. Whatever fails, the chain on disk stays one line:
// consecutive seq, each prev_hash the hash before, each hash its entry's. On a real SQLite file.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import {
  appendAudit,
  auditEntryFromRow,
  GENESIS_HASH,
  hashAuditEntry,
  type AuditEvent,
} from '../../../src/db/audit/log.js'
import type { Database, Db } from '../../../src/db/database.js'
import { createSqliteDatabase } from '../../../src/db/dialects/sqlite.js'
import { inWriteTransaction } from '../../../src/db/group-commit.js'
import { createSystemTables, SYSTEM_TABLES } from '../../../src/db/system-tables.js'

async function open(t: Test): Promise<Database> {
  const dir = mkdtempSync(join(tmpdir(), 'records-chain-group-'))
  const database = createSqliteDatabase({ file: join(dir, 'records.db') })
  await createSystemTables(database.db, 'sqlite')
  t.teardown(async () => {
    await database.close()
    rmSync(dir, { recursive: true, force: true })
  })
  return database
}

const event = (recordId: string): AuditEvent => ({
  userId: 'admin',
  action: 'crear',
  module: 'denuncias',
  recordId,
  version: 1,
  recordHash: null,
  fields: ['descripcion'],
})
const append = (database: Database, trx: Db, recordId: string) =>
  appendAudit({ database, trx, events: [event(recordId)], at: '2026-05-10T09:00:00.000+02:00' })

/** The chain on disk: its record ids in order, after checking every link and hash. */
async function chainOf(t: Test, database: Database): Promise<string[]> {
  const rows = await database.db.selectFrom(SYSTEM_TABLES.audit).selectAll().orderBy('seq').execute()
  let prev = GENESIS_HASH
  rows.forEach((row, i) => {
    const entry = auditEntryFromRow(row)
    t.equal(entry.seq, i + 1, `entry ${i + 1}: seq follows the one before`)
    t.equal(entry.prev_hash, prev, `entry ${i + 1}: prev_hash is the hash before`)
    t.equal(hashAuditEntry(entry), entry.hash, `entry ${i + 1}: its hash is its own`)
    prev = entry.hash
  })
  return rows.map((r) => String(r['record_id']))
}

const fails = new Error('rechazada después de su entrada')

t.test('a write undone to its savepoint after its entry: the next write chains after the one before', async (t) => {
  const database = await open(t)
  await inWriteTransaction(database, (trx) => append(database, trx, 'DEN-0'))
  const attempts = await Promise.allSettled([
    inWriteTransaction(database, (trx) => append(database, trx, 'DEN-1'), { withoutSavepoint: true }),
    inWriteTransaction(database, async (trx) => {
      await append(database, trx, 'DEN-undone')
      throw fails
    }),
    inWriteTransaction(database, (trx) => append(database, trx, 'DEN-2'), { withoutSavepoint: true }),
    inWriteTransaction(database, (trx) => append(database, trx, 'DEN-3')),
  ])
  t.same(
    attempts.map((a) => a.status),
    ['fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
  )
  t.same(await chainOf(t, database), ['DEN-0', 'DEN-1', 'DEN-2', 'DEN-3'])
})

t.test('a write without a savepoint failing after its entry: the group runs again from the tail on disk', async (t) => {
  const database = await open(t)
  await inWriteTransaction(database, (trx) => append(database, trx, 'DEN-0'))
  let tries = 0
  const attempts = await Promise.allSettled([
    inWriteTransaction(database, (trx) => append(database, trx, 'DEN-1'), { withoutSavepoint: true }),
    inWriteTransaction(
      database,
      async (trx) => {
        await append(database, trx, 'DEN-undone')
        tries += 1
        throw fails
      },
      { withoutSavepoint: true },
    ),
    inWriteTransaction(database, (trx) => append(database, trx, 'DEN-2'), { withoutSavepoint: true }),
  ])
  t.equal(tries, 2, 'the failing write ran in both runs')
  t.same(
    attempts.map((a) => a.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  )
  t.same(await chainOf(t, database), ['DEN-0', 'DEN-1', 'DEN-2'])
})

t.test('a group of many writes and the writes after it form one chain', async (t) => {
  const database = await open(t)
  const ids = Array.from({ length: 20 }, (_, i) => `DEN-${i}`)
  await Promise.all(
    ids.map((id, i) =>
      inWriteTransaction(database, (trx) => append(database, trx, id), { withoutSavepoint: i % 3 !== 0 }),
    ),
  )
  // Outside any group (another writer's own transaction): the tail is read from disk.
  await database.db.transaction().execute((trx) => append(database, trx, 'DEN-alone'))
  await inWriteTransaction(database, (trx) => append(database, trx, 'DEN-last'), { withoutSavepoint: true })
  t.same(await chainOf(t, database), [...ids, 'DEN-alone', 'DEN-last'])
})
