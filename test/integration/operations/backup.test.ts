// `records backup` / `npm run backup` (README, operators): an online copy taken while the service writes
// is a consistent database holding every committed record, and an existing file is never overwritten.
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import t from 'tap'
import { backupSqlite } from '../../../src/db/operations/backup.js'
import { startTestApi, VALID } from '../../helpers/api.js'
import { ON_POSTGRES } from '../../helpers/postgres.js'

// SQLite's online backup API copies a SQLite file; PostgreSQL has pg_dump and pg_basebackup (README).
const SQLITE_ONLY = { skip: ON_POSTGRES && 'SQLite only: the online backup of the embedded database file' }

t.test('a backup taken during writes is complete and passes integrity_check', SQLITE_ONLY, async (t) => {
  const api = await startTestApi(t)
  for (let i = 0; i < 20; i++) await api.create('denuncias', VALID['denuncias']!())
  const source = join(api.dataDir, 'records.db')
  const destination = join(t.testdir(), 'copia.db')
  // Writes keep coming while the copy runs.
  const writes = Promise.all(Array.from({ length: 10 }, () => api.create('atestados', VALID['atestados']!())))
  const result = await backupSqlite(source, destination)
  await writes
  t.ok(result.pages > 0)
  const copy = new BetterSqlite3(destination, { readonly: true })
  t.teardown(() => copy.close())
  t.same(copy.pragma('integrity_check'), [{ integrity_check: 'ok' }])
  t.equal(
    (copy.prepare('select count(*) as n from denuncias').get() as { n: number }).n,
    20,
    'every committed denuncia is in the copy',
  )
  await t.rejects(backupSqlite(source, destination), /ya existe/, 'an existing copy is not overwritten')
  await t.rejects(backupSqlite(join(api.dataDir, 'nope.db'), join(t.testdir(), 'x.db')), /No existe/)
})
