// Record ids `<PREFIX>-<YYYY>-<NNNNN>` from an atomic per-prefix, per-year counter (D8).
import { sql } from 'kysely'
import type { Db } from './database.js'
import { SYSTEM_TABLES } from './migrate/system-tables.js'
import { preparedQuery } from './prepared.js'

export const formatRecordId = (prefix: string, year: number, n: number): string =>
  `${prefix}-${year}-${String(n).padStart(5, '0')}`

/** Must run inside the write transaction that inserts the record: a rollback gives the number back. */
export async function nextRecordId(trx: Db, prefix: string, year: number): Promise<string> {
  const [id] = await reserveRecordIds(trx, prefix, year, 1)
  return id as string
}

const reserve = preparedQuery<'prefix' | 'year' | 'count'>((db, param) => {
  const table = SYSTEM_TABLES.sequences
  return db
    .insertInto(table)
    .values({ prefix: param('prefix'), year: param('year'), value: param('count') })
    .onConflict((oc) =>
      oc.columns(['prefix', 'year']).doUpdateSet({ value: sql`${sql.ref(`${table}.value`)} + ${param('count')}` }),
    )
    .returning('value')
})

/** `count` consecutive ids in one statement (bulk import); same transaction rule as nextRecordId. */
export async function reserveRecordIds(trx: Db, prefix: string, year: number, count: number): Promise<string[]> {
  const row = (await trx.executeQuery(reserve(trx).bind({ prefix, year, count }))).rows[0]
  if (row === undefined) throw new Error(`the id sequence ${prefix}-${year} returned no value`)
  const last = Number(row['value'])
  return Array.from({ length: count }, (_, i) => formatRecordId(prefix, year, last - count + 1 + i))
}
