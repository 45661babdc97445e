// DATABASE_URL -> an open Database. `sqlite:<path>` is the embedded default (D1);
// `postgres://...` serves many instances on one database (issue #8).
import { createPostgresDatabase } from './dialects/postgres.js'
import { createSqliteDatabase } from './dialects/sqlite.js'
import type { Database } from './database.js'

export interface ConnectOptions {
  /** PostgreSQL connections per instance (DATABASE_POOL_SIZE). */
  readonly poolSize?: number
}

export function createDatabase(url: string, options: ConnectOptions = {}): Database {
  if (url.startsWith('sqlite:')) return createSqliteDatabase({ file: url.slice('sqlite:'.length) })
  if (url.startsWith('postgres://') || url.startsWith('postgresql://'))
    return createPostgresDatabase({ url, ...(options.poolSize === undefined ? {} : { poolSize: options.poolSize }) })
  throw new Error(`DATABASE_URL no reconocida: use sqlite:<ruta> o postgres://... (recibido '${url.split(':')[0]}:...')`)
}
