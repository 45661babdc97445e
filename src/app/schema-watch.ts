// A running service serves the modules.yaml it started with. When the file
// changes under it, or another process (`records migrate`, a newer instance) migrates the
// database to another schema, it says so, once per change, in the log (warn) and on /health,
// and applies nothing: the administrator restarts when ready. Checked on /health and every 30 s
// (a job of jobs.ts).
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { parse } from 'yaml'
import { compileService } from '../compile/service.js'
import type { ModuleSpec } from '../compile/types.js'
import { loadModulesConfig } from '../config/load.js'
import { canonicalJson } from '../db/canonical.js'
import type { Database } from '../db/database.js'
import { readSnapshot } from '../db/migrate/apply.js'
import { planMigration } from '../db/migrate/plan.js'
import { snapshotOf } from '../db/migrate/snapshot.js'

/** What /health shows under `esquema` when the service no longer serves the current schema. */
export interface SchemaDrift {
  readonly reinicio_pendiente: true
  readonly motivos: readonly string[]
}

export interface SchemaWatchOptions {
  readonly modulesFile: string
  readonly modules: readonly ModuleSpec[]
  readonly database: Database
  readonly warn: (message: string) => void
}

/** How often jobs.ts looks without being asked. */
export const SCHEMA_WATCH_MS = 30_000

export interface SchemaWatch {
  /** undefined while the service serves what the file and the database say. */
  check(): Promise<SchemaDrift | undefined>
}

const read = (file: string): string => {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return ''
  }
}

/** The file's meaning, not its bytes: comments and layout do not count as a change. */
function meaningOf(text: string): string {
  try {
    return createHash('sha256')
      .update(canonicalJson(parse(text) as unknown))
      .digest('hex')
  } catch {
    return 'ilegible'
  }
}

/** /health may be polled often: the file and the row are looked at once a second at most. */
const MIN_CHECK_MS = 1_000

export function createSchemaWatch(options: SchemaWatchOptions): SchemaWatch {
  // The text only: parsing it again would cost every start; its meaning is computed on a change.
  const servedText = read(options.modulesFile)
  let servedMeaning: string | undefined
  // The row as this version writes it (apply.ts): equal text is the same schema, with no parsing.
  // Other text (another version's key order) is compared by meaning, computed then.
  const servedSnapshot = JSON.stringify(snapshotOf(options.modules))
  let servedCanonical: string | undefined
  let lastFile = servedText
  let lastDatabase = servedSnapshot
  let reasons: { file?: string; database?: string } = {}
  let lastCheck = 0
  let running: Promise<SchemaDrift | undefined> | undefined

  /** One sentence on what the new file asks of the database. */
  async function pendingOf(): Promise<string> {
    try {
      const modules = compileService(loadModulesConfig(options.modulesFile)).modules
      const steps = planMigration(await readSnapshot(options.database), modules)
      return steps.length === 0
        ? 'no pide cambios de esquema'
        : `pide ${steps.length} cambios de esquema (véalos con records migrate --dry-run)`
    } catch {
      return 'no es válido (compruébelo con records validate)'
    }
  }

  async function look(): Promise<SchemaDrift | undefined> {
    const file = read(options.modulesFile)
    if (file !== lastFile) {
      lastFile = file
      servedMeaning ??= meaningOf(servedText)
      const same = file === servedText || meaningOf(file) === servedMeaning
      reasons = same
        ? { ...reasons, file: undefined }
        : {
            ...reasons,
            file:
              `modules.yaml ha cambiado desde el arranque y ${await pendingOf()}; ` +
              'este proceso sigue sirviendo la versión anterior hasta que se reinicie',
          }
      if (reasons.file !== undefined) options.warn(reasons.file)
    }
    const row = await options.database.db
      .selectFrom('_schema_state')
      .select('snapshot')
      .where('id', '=', 1)
      .executeTakeFirst()
    const database = row === undefined ? servedSnapshot : String(row['snapshot'])
    if (database !== lastDatabase) {
      lastDatabase = database
      servedCanonical ??= canonicalJson(JSON.parse(servedSnapshot) as unknown)
      reasons =
        database === servedSnapshot || canonicalJson(JSON.parse(database) as unknown) === servedCanonical
          ? { ...reasons, database: undefined }
          : {
              ...reasons,
              database:
                'la base de datos se ha migrado a otro esquema (records migrate u otra instancia) ' +
                'que este proceso no sirve: reinícielo',
            }
      if (reasons.database !== undefined) options.warn(reasons.database)
    }
    const motivos = [reasons.file, reasons.database].filter((r): r is string => r !== undefined)
    return motivos.length === 0 ? undefined : { reinicio_pendiente: true, motivos }
  }

  let current: SchemaDrift | undefined
  const check = async () => {
    if (running !== undefined) return running
    if (Date.now() - lastCheck < MIN_CHECK_MS) return current
    lastCheck = Date.now()
    running = look()
      .then((drift) => (current = drift))
      .finally(() => (running = undefined))
    return running
  }
  return { check }
}
