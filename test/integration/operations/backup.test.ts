// `npm run backup` (README, operators; issue #5): an online copy taken while the service writes
// is a consistent database holding every committed record, and an existing file is never overwritten.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import t from 'tap'
import { backupSqlite } from '../../../src/db/backup.js'
import { startTestApi, VALID } from '../../helpers/api.js'

const ROOT = new URL('../../../', import.meta.url).pathname

t.test('a backup taken during writes is complete and passes integrity_check', async (t) => {
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
  t.equal((copy.prepare('select count(*) as n from denuncias').get() as { n: number }).n, 20, 'every committed denuncia is in the copy')
  await t.rejects(backupSqlite(source, destination), /ya existe/, 'an existing copy is not overwritten')
  await t.rejects(backupSqlite(join(api.dataDir, 'nope.db'), join(t.testdir(), 'x.db')), /No existe/)
})

t.test('npm run backup: the script copies the database of DATA_DIR to the given file', async (t) => {
  const api = await startTestApi(t)
  await api.create('denuncias', VALID['denuncias']!())
  const destination = join(t.testdir(), 'sub', 'copia.db')
  const child = spawn(process.execPath, [...process.execArgv, join(ROOT, 'scripts/backup.ts'), destination], {
    cwd: ROOT, env: { ...process.env, DATA_DIR: api.dataDir, DATABASE_URL: '' }, stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
  t.equal(code, 0, output)
  t.match(output, /Copia creada: .*copia\.db/)
  t.ok(existsSync(destination))
})
