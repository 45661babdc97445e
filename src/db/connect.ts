// DATABASE_URL -> an open Database. `sqlite:<path>` is the embedded default (D1).
import { createSqliteDatabase } from './dialects/sqlite.js'
import type { Database } from './database.js'

export function createDatabase(url: string): Database {
  if (url.startsWith('sqlite:')) return createSqliteDatabase({ file: url.slice('sqlite:'.length) })
  if (url.startsWith('postgres://') || url.startsWith('postgresql://'))
    // TODO(#8): the PostgreSQL dialect.
    throw new Error('DATABASE_URL: PostgreSQL todavía no está disponible en esta versión; use sqlite:<ruta>')
  throw new Error(`DATABASE_URL no reconocida: use sqlite:<ruta> (recibido '${url.split(':')[0]}:...')`)
}
