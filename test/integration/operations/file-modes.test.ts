// The database, its -wal and -shm, the generated secrets and backups are readable by their
// owner only (0600) whatever the umask and whether DATA_DIR existed.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { backupSqlite } from '../../../src/db/operations/backup.js'
import { startTestApi, VALID } from '../../helpers/api.js'
import { ON_POSTGRES } from '../../helpers/postgres.js'

const modeOf = (path: string): string => (statSync(path).mode & 0o777).toString(8)

t.test('files are 0600 under umask 022 in a DATA_DIR that already existed', async (t) => {
  const previous = process.umask(0o022)
  t.teardown(() => void process.umask(previous))
  const dataDir = mkdtempSync(join(tmpdir(), 'records-modes-'))
  chmodSync(dataDir, 0o755)
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const api = await startTestApi(t, { dataDir })
  await api.create('denuncias', VALID['denuncias']!())
  t.equal(modeOf(join(dataDir, 'jwt-secret')), '600', 'the generated JWT secret')
  t.equal(modeOf(join(dataDir, 'encryption.key')), '600', 'the generated encryption key')
  if (ON_POSTGRES) return // the records live in PostgreSQL, not in DATA_DIR
  for (const name of ['records.db', 'records.db-wal', 'records.db-shm'])
    t.equal(modeOf(join(dataDir, name)), '600', name)
  const backups = join(dataDir, 'backups')
  mkdirSync(backups, { mode: 0o755 })
  const copy = join(backups, 'copia.db')
  await backupSqlite(join(dataDir, 'records.db'), copy)
  t.equal(modeOf(copy), '600', 'a backup into a folder that already existed')
})

t.test('files an older version left readable by others are made private at start', async (t) => {
  if (ON_POSTGRES) return t.pass('SQLite files only')
  const previous = process.umask(0o022)
  t.teardown(() => void process.umask(previous))
  const dataDir = mkdtempSync(join(tmpdir(), 'records-modes-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const first = await startTestApi(t, { dataDir })
  await first.create('denuncias', VALID['denuncias']!())
  await first.service.close()
  for (const name of ['records.db', 'jwt-secret', 'encryption.key']) chmodSync(join(dataDir, name), 0o644)
  writeFileSync(join(dataDir, 'records.db-wal'), '')
  chmodSync(join(dataDir, 'records.db-wal'), 0o644)
  const second = await startTestApi(t, { dataDir })
  await second.create('denuncias', VALID['denuncias']!())
  for (const name of ['records.db', 'records.db-wal', 'records.db-shm', 'jwt-secret', 'encryption.key'])
    t.equal(modeOf(join(dataDir, name)), '600', name)
})
