// Record ids `<PREFIX>-<YYYY>-<NNNNN>` from an atomic per-prefix, per-year counter (D8).
import { sql } from 'kysely'
import type { Db } from './database.js'
import { SYSTEM_TABLES } from './migrate/system-tables.js'

export const formatRecordId = (prefix: string, year: number, n: number): string =>
  `${prefix}-${year}-${String(n).padStart(5, '0')}`

/** Must run inside the write transaction that inserts the record: a rollback gives the number back. */
export async function nextRecordId(trx: Db, prefix: string, year: number): Promise<string> {
  const table = SYSTEM_TABLES.sequences
  const row = await trx.insertInto(table).values({ prefix, year, value: 1 })
    .onConflict((oc) => oc.columns(['prefix', 'year']).doUpdateSet({ value: sql`${sql.ref(`${table}.value`)} + 1` }))
    .returning('value')
    .executeTakeFirstOrThrow()
  return formatRecordId(prefix, year, Number(row['value']))
}
