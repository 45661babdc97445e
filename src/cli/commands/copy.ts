// `records copy --from <url> --to <url>`: moves a whole installation (an embedded SQLite one to
// PostgreSQL, typically) with every record, account, audit entry, sequence and hash as it is,
// so `records audit verify` on the target checks the same chain, and every evidence file (D43),
// so `records files verify` on the target checks the same digests.
import { existsSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { createDatabase } from '../../db/connect.js'
import { copyDatabase } from '../../db/operations/copy.js'
import { createFieldCipher } from '../../db/crypto.js'
import { createRecordCodec } from '../../db/records/codec.js'
import { openRecordKeys } from '../../db/keys/record-keys.js'
import { flag, stringOption, type Command, JSON_OPTION } from '../command.js'
import { withEnvironment } from '../environment.js'
import { printJson, printLines } from '../output.js'
import { commandFailed, usageError } from '../../errors.js'
import { countOf } from '../plural.js'

const redact = (url: string): string => url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@')

const copy: Command = {
  name: 'copy',
  summary: 'Copia una instalación entera a otra base de datos vacía (SQLite -> PostgreSQL)',
  help: `
Uso: records copy --from <url> --to <url> [--to-data-dir carpeta] [--json]

Copia todo lo que hay en la base de datos de origen (registros, también los eliminados, cuentas,
auditoría, secuencias de identificadores, tokens revocados, registro de claves, ficheros de
prueba) a una base de datos de destino vacía, en una sola transacción: todo o nada. Los valores
cifrados y los _hash pasan tal cual, así que la cadena de auditoría sigue verificando en el
destino. Cada fichero se copia cifrado como está, comprobando por el camino su SHA-256: un
fichero ilegible o alterado en el origen detiene la copia.

  --from url          sqlite:/ruta/records.db o postgres://usuario@host:5432/base; en SQLite
                      los ficheros del origen se leen de DATA_DIR/ficheros
  --to url            igual; debe estar vacía (se crea su esquema desde modules.yaml)
  --to-data-dir dir   destino SQLite: el DATA_DIR donde escribir sus ficheros (por omisión la
                      carpeta de la base de datos de destino); su carpeta ficheros debe estar vacía
  --json              {"from", "to", "tables": {tabla: filas}, "files": {"count", "bytes"}}

El origen debe estar al día con modules.yaml (arranque el servicio sobre él o use records
migrate antes). Use la misma RECORDS_ENCRYPTION_KEY (y claves antiguas) que el origen.
Después: DATABASE_URL=<destino> records audit verify y records files verify.

Salida: 0 si la copia está hecha; 1 si el destino no está vacío, el origen no está al día, un
fichero del origen no verifica o falla.`,
  options: {
    ...JSON_OPTION,
    from: { type: 'string' },
    to: { type: 'string' },
    'to-data-dir': { type: 'string' },
  },
  positionals: { min: 0, max: 0 },
  async run(input) {
    const from = stringOption(input, 'from')
    const to = stringOption(input, 'to')
    if (from === undefined || to === undefined) throw usageError('Faltan --from y --to. Vea records copy --help')
    if (from === to) throw commandFailed('El origen y el destino son la misma base de datos')
    if (from.startsWith('sqlite:') && !existsSync(from.slice('sqlite:'.length)))
      throw commandFailed(`No existe la base de datos de origen '${from}'`)
    const givenDataDir = stringOption(input, 'to-data-dir')
    const targetDir = resolve(
      input.cwd,
      givenDataDir ?? (to.startsWith('sqlite:') ? dirname(resolve(input.cwd, to.slice('sqlite:'.length))) : '.'),
    )
    const env = { ...input.env, DATABASE_URL: from }
    const result = await withEnvironment(
      input,
      async (source) => {
        const target = await createDatabase(to, { poolSize: source.settings.databasePoolSize })
        try {
          const cipher = createFieldCipher(source.keyring)
          const codec = createRecordCodec(target.dialect, cipher)
          // The per-record data keys (D41) go to the target's key store first, wrapped as they were.
          const targetKeys = await openRecordKeys({ database: target, cipher })
          try {
            return await copyDatabase({
              source: source.database,
              target,
              modules: source.spec.modules,
              files: { sourceDir: source.settings.dataDir, targetDir, cipher },
              migration: { codec, clock: source.clock, timezone: source.spec.service.timezone },
              recordKeys: { from: source.recordKeys, to: targetKeys },
              onProgress: ({ table, rows }) => {
                if (input.stderr.isTTY === true) input.stderr.write(`\r${table}: ${countOf(rows, 'filas')}`.padEnd(60))
              },
            })
          } finally {
            await targetKeys.close()
          }
        } finally {
          if (input.stderr.isTTY === true) input.stderr.write('\n')
          await target.close()
        }
      },
      { env, migrate: false },
    )
    if (flag(input, 'json'))
      printJson(input, { from: redact(from), to: redact(to), tables: result.tables, files: result.files })
    else
      printLines(input, [
        ...Object.entries(result.tables).map(([table, rows]) => `${table}: ${countOf(rows, 'filas')}`),
        `ficheros de prueba: ${countOf(result.files.count, 'ficheros')} (${result.files.bytes} bytes, SHA-256 comprobado)`,
        `Copia terminada de ${redact(from)} a ${redact(to)}. Compruébela con: DATABASE_URL=<destino> records audit verify y records files verify`,
      ])
    return 0
  },
}

export const commands = [copy]
