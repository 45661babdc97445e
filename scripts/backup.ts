// `npm run backup [-- <file>]`: an online copy of the SQLite database of DATABASE_URL / DATA_DIR
// (README, operators). Safe while the service runs; refuses to overwrite an existing file.
import { mkdirSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { backupSqlite } from '../src/db/backup.js'
import { loadDotEnv, loadSettings } from '../src/settings.js'

async function main(): Promise<void> {
  loadDotEnv()
  const settings = loadSettings()
  if (!settings.databaseUrl.startsWith('sqlite:')) throw new Error('La copia en línea es para sqlite:; para PostgreSQL use pg_dump')
  const stamp = new Date().toISOString().replace(/[:.]/g, '-')
  const destination = resolve(process.argv[2] ?? join(settings.dataDir, 'backups', `records-${stamp}.db`))
  mkdirSync(dirname(destination), { recursive: true, mode: 0o700 })
  const { pages } = await backupSqlite(settings.databaseUrl.slice('sqlite:'.length), destination)
  console.log(`Copia creada: ${destination} (${pages} páginas). Guarde la clave de cifrado aparte.`)
}

main().catch((error: unknown) => {
  console.error(`No se pudo crear la copia: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
})
