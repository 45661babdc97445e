// Whole tables read in pages by key (keyset paging): each page starts after the last row of the
// page before, one index seek at any depth, never an OFFSET walk. A module's records by `_row`
// (migrations, integrity checks) and its kept versions by record and version (key rotation, key
// usage, migrations) are read through here.
import type { ExpressionBuilder, Expression, SelectQueryBuilder, SqlBool } from 'kysely'
import { ROW_COLUMN } from '../../compile/metadata.js'
import type { ModuleSpec } from '../../compile/types.js'
import type { Db, DynamicDb, Row } from '../database.js'
import { SYSTEM_TABLES } from '../system-tables.js'
import { storedVersionOf, type StoredVersion } from './versions.js'

type Select = SelectQueryBuilder<DynamicDb, string, Row>

/**
 * The rows of `select` in pages of `size`, in the order of `keys` (unique together); a page
 * shorter than `size` is the last. The caller may write between pages, in the same transaction
 * or not, as long as it changes no key.
 */
export async function* keysetPages(select: () => Select, keys: readonly string[], size: number): AsyncGenerator<Row[]> {
  let last: Row | undefined
  for (;;) {
    const after = last
    let query = after === undefined ? select() : select().where((eb) => beyond(eb, keys, after))
    for (const key of keys) query = query.orderBy(key)
    const rows = await query.limit(size).execute()
    if (rows.length > 0) yield rows
    if (rows.length < size) return
    last = rows[rows.length - 1]
  }
}

/** Rows whose keys come after `last`'s: k1 > a1, or k1 = a1 and the rest come after. */
function beyond(eb: ExpressionBuilder<DynamicDb, string>, keys: readonly string[], last: Row): Expression<SqlBool> {
  const [key, ...rest] = keys as [string, ...string[]]
  if (rest.length === 0) return eb(key, '>', last[key])
  return eb.or([eb(key, '>', last[key]), eb.and([eb(key, '=', last[key]), beyond(eb, rest, last)])])
}

/** Every row of a module's table, deleted ones included, in `_row` order. */
export function recordPages(db: Db, spec: ModuleSpec, size: number): AsyncGenerator<Row[]> {
  return keysetPages(() => db.selectFrom(spec.table.name).selectAll(), [ROW_COLUMN], size)
}

/**
 * The kept versions of a module's records, by record and version; with
 * `ciphertext`, only those holding an encrypted value at all (`v1.…` inside their JSON).
 */
export async function* versionPages(
  db: Db,
  module: string,
  size: number,
  { ciphertext = false }: { readonly ciphertext?: boolean } = {},
): AsyncGenerator<StoredVersion[]> {
  const select = () =>
    db
      .selectFrom(SYSTEM_TABLES.versions)
      .selectAll()
      .where('module', '=', module)
      .$if(ciphertext, (q) => q.where('data', 'like', '%"v1.%'))
  for await (const rows of keysetPages(select, ['record_id', 'version'], size)) yield rows.map(storedVersionOf)
}
