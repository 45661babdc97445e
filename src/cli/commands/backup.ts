// `records backup [file]`: an online copy of the embedded SQLite database with SQLite's backup
// API, safe while the service runs (docs/operators.md). PostgreSQL has its own tools (pg_dump).
import { mkdirSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { backupSqlite } from '../../db/operations/backup.js'
import { flag, type Command, JSON_OPTION } from '../command.js'
import { settingsOf } from '../environment.js'
import { messageOf, printJson, printLines } from '../output.js'
import { commandFailed } from '../../errors.js'

const backup: Command = {
  name: 'backup',
  summary: 'Copia en línea de la base de datos SQLite, con el servicio en marcha',
  help: `
Uso: records backup [fichero] [--json]

Copia la base de datos SQLite (DATABASE_URL o DATA_DIR/records.db) con la API de copia en
línea de SQLite: una instantánea coherente aunque el servicio siga escribiendo. Por defecto
en DATA_DIR/backups/records-<fecha>.db. Nunca sobrescribe un fichero existente.
La clave de cifrado no va en la copia: guárdela aparte. Tampoco va la base de datos de claves
por registro (records-keys.db junto a la base de datos, D41): cópiela aparte y consérvela poco
tiempo, para que un registro suprimido deje de poder leerse en las copias anteriores
(docs/operators.md).

  --json   {"destination", "pages"}

Salida: 0 si la copia está hecha; 1 si el destino existe, la base de datos no es SQLite o falla.`,
  options: JSON_OPTION,
  positionals: { min: 0, max: 1 },
  async run(input) {
    const settings = settingsOf(input)
    if (!settings.databaseUrl.startsWith('sqlite:'))
      throw commandFailed('La copia en línea es para sqlite:; para PostgreSQL use pg_dump')
    const stamp = new Date().toISOString().replace(/[:.]/g, '-')
    const destination = resolve(
      input.cwd,
      input.positionals[0] ?? join(settings.dataDir, 'backups', `records-${stamp}.db`),
    )
    mkdirSync(dirname(destination), { recursive: true, mode: 0o700 })
    let result
    try {
      result = await backupSqlite(settings.databaseUrl.slice('sqlite:'.length), destination)
    } catch (error) {
      throw commandFailed(messageOf(error))
    }
    if (flag(input, 'json')) printJson(input, result)
    else
      printLines(input, [
        `Copia creada: ${result.destination} (${result.pages} páginas). Guarde la clave de cifrado aparte.`,
        'Las claves por registro (records-keys.db) no van en esta copia: cópielas aparte, con una retención corta.',
      ])
    return 0
  },
}

export const commands = [backup]
