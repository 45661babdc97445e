// A connection's page cache: the build's size unless the caller asks for less (the
// consultation log's writer thread keeps 2 MiB: it appends, and a full cache of the pages it
// appended was about 12 MiB of the service's peak memory). On a real SQLite file.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import t from 'tap'
import { createSqliteDatabase } from '../../../src/db/dialects/sqlite.js'

const cacheSize = async (cacheKiB?: number): Promise<number> => {
  const dir = mkdtempSync(join(tmpdir(), 'records-cache-'))
  const database = createSqliteDatabase({
    file: join(dir, 'records.db'),
    ...(cacheKiB === undefined ? {} : { cacheKiB }),
  })
  try {
    const { rows } = await sql<{ cache_size: number }>`pragma cache_size`.execute(database.db)
    return Number(rows[0]?.cache_size)
  } finally {
    await database.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

t.test('a connection keeps the build’s page cache unless asked for less', async (t) => {
  t.equal(await cacheSize(), -16000, 'better-sqlite3’s build: 16,000 KiB')
  t.equal(await cacheSize(2048), -2048, 'asked for 2,048 KiB: a negative size counts KiB, not pages')
  t.equal(await cacheSize(0.5), -1, 'never zero: at least one KiB')
})
