// DATABASE_URL -> an open Database. `sqlite:<path>` is the embedded default (D1);
// `postgres://...` serves many instances on one database.
// The PostgreSQL driver is imported only when a postgres:// URL asks for it: `pg` costs
// about 40 ms of every SQLite start.
import { settingInvalid } from '../errors.js'
import { createSqliteDatabase } from './dialects/sqlite.js'
import type { Database } from './database.js'

export interface ConnectOptions {
  /** PostgreSQL connections per instance (DATABASE_POOL_SIZE). */
  readonly poolSize?: number
}

export async function createDatabase(url: string, options: ConnectOptions = {}): Promise<Database> {
  if (url.startsWith('sqlite:')) return createSqliteDatabase({ file: url.slice('sqlite:'.length) })
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    const { createPostgresDatabase } = await import('./dialects/postgres.js')
    return createPostgresDatabase({ url, ...(options.poolSize === undefined ? {} : { poolSize: options.poolSize }) })
  }
  throw settingInvalid(
    `DATABASE_URL no reconocida: use sqlite:<ruta> o postgres://... (recibido '${url.split(':')[0]}:...')`,
  )
}
