// Record ids `<PREFIX>-<YYYY>-<NNNNN>` (D8) from a per-prefix, per-year counter that never
// gives a number twice. SQLite: a row of `_sequences`, raised in the write transaction (one
// writer at a time anyway, and a rollback gives the number back). PostgreSQL (D37): a real
// SEQUENCE per prefix and year, so concurrent creates of every instance do not wait on one
// row until commit; a rolled-back create leaves a gap. The `_sequences` row stays the floor
// the sequence starts after (an upgraded database continues its numbering) and is raised to
// the sequence's value when the counters are read out (foldRecordIdCounters: a copy).
import { sql } from 'kysely'
import type { Database, Db } from '../database.js'
import { SYSTEM_TABLES } from '../system-tables.js'
import { preparedQuery } from '../prepared.js'

export const formatRecordId = (prefix: string, year: number, n: number): string =>
  `${prefix}-${year}-${String(n).padStart(5, '0')}`

/** The PostgreSQL sequence of `prefix` and `year` (a prefix is [A-Z0-9]{2,6}: no quoting needed). */
export const recordIdSequence = (prefix: string, year: number): string => `_id_${prefix.toLowerCase()}_${year}`

// SQLite: the counter raised, then read, inside the write transaction that holds the write lock
// (nothing else writes between the two). One upsert with `RETURNING` did both, at about 37 µs
// against 6 for the two (`create-statements.js --concurrency 10`, 2026-11-29; a create's time in
// the driver fell by about 40 µs in all): SQLite runs a RETURNING statement to its end into a
// buffer before handing out its first row.
const raise = preparedQuery<'prefix' | 'year' | 'count'>((db, param) => {
  const table = SYSTEM_TABLES.sequences
  return db
    .insertInto(table)
    .values({ prefix: param('prefix'), year: param('year'), value: param('count') })
    .onConflict((oc) =>
      oc.columns(['prefix', 'year']).doUpdateSet({ value: sql`${sql.ref(`${table}.value`)} + ${param('count')}` }),
    )
})
const raised = preparedQuery<'prefix' | 'year'>((db, param) =>
  db
    .selectFrom(SYSTEM_TABLES.sequences)
    .select('value')
    .where('prefix', '=', param('prefix'))
    .where('year', '=', param('year')),
)

/** Per database, the sequences known to exist (a promise: concurrent first uses share one creation). */
const ready = new WeakMap<Database, Map<string, Promise<void>>>()

/**
 * Makes sure the id source of `prefix` and `year` exists: on PostgreSQL creates its sequence
 * (once per process), starting after the `_sequences` value. Call it OUTSIDE the write
 * transaction (it takes a connection of its own). SQLite: nothing to do.
 */
export function prepareRecordIds(database: Database, prefix: string, year: number): Promise<void> {
  if (database.dialect !== 'postgres') return Promise.resolve()
  let known = ready.get(database)
  if (known === undefined) ready.set(database, (known = new Map()))
  const name = recordIdSequence(prefix, year)
  let creation = known.get(name)
  if (creation === undefined) {
    creation = createSequence(database, prefix, year).catch((error: unknown) => {
      known.delete(name)
      throw error
    })
    known.set(name, creation)
  }
  return creation
}

/**
 * Under the ids lock, so instances starting together neither race on CREATE SEQUENCE nor move
 * a sequence back: a sequence behind its `_sequences` floor (a database restored or copied into)
 * is set to the floor once; numbers given out later are above it, so the check never fires again.
 */
async function createSequence(database: Database, prefix: string, year: number): Promise<void> {
  const name = sql.id(recordIdSequence(prefix, year))
  await database.db.transaction().execute(async (trx) => {
    await database.lock(trx, 'ids')
    await trx
      .insertInto(SYSTEM_TABLES.sequences)
      .values({ prefix, year, value: 0 })
      .onConflict((oc) => oc.columns(['prefix', 'year']).doNothing())
      .execute()
    const floorRow = await trx
      .selectFrom(SYSTEM_TABLES.sequences)
      .select('value')
      .where('prefix', '=', prefix)
      .where('year', '=', year)
      .executeTakeFirst()
    const floor = Number(floorRow?.['value'] ?? 0)
    await sql`create sequence if not exists ${name} as bigint minvalue 1 start with ${sql.lit(floor + 1)}`.execute(trx)
    const given = await givenBy(trx, recordIdSequence(prefix, year))
    if (given < floor)
      await sql`select setval(${recordIdSequence(prefix, year)}::regclass, ${floor}, true)`.execute(trx)
  })
}

/** The last number a sequence gave out (0: none yet). */
async function givenBy(db: Db, sequence: string): Promise<number> {
  const { rows } = await sql<{
    last_value: number
    is_called: boolean
  }>`select last_value, is_called from ${sql.id(sequence)}`.execute(db)
  const row = rows[0]
  if (row === undefined) return 0
  return row.is_called ? Number(row.last_value) : Number(row.last_value) - 1
}

/**
 * `count` ids never given before, in ascending order, inside the write transaction that inserts
 * the records (prepareRecordIds first). SQLite: consecutive, and a rollback gives them back.
 * PostgreSQL: unique and ascending, not necessarily consecutive under concurrent creates, and
 * a rollback does not give them back (gaps, D37).
 */
export async function reserveRecordIds(
  database: Database,
  trx: Db,
  prefix: string,
  year: number,
  count: number,
): Promise<string[]> {
  if (database.dialect === 'postgres') {
    await prepareRecordIds(database, prefix, year)
    const { rows } = await sql<{
      n: number
    }>`select nextval(${recordIdSequence(prefix, year)}::regclass) as n from generate_series(1, ${count})`.execute(trx)
    if (rows.length !== count) throw new Error(`the id sequence ${prefix}-${year} returned ${rows.length} of ${count}`)
    return rows
      .map((r) => Number(r.n))
      .sort((a, b) => a - b)
      .map((n) => formatRecordId(prefix, year, n))
  }
  await trx.executeQuery(raise(trx).bind({ prefix, year, count }))
  const row = (await trx.executeQuery(raised(trx).bind({ prefix, year }))).rows[0]
  if (row === undefined) throw new Error(`the id sequence ${prefix}-${year} returned no value`)
  const last = Number(row['value'])
  return Array.from({ length: count }, (_, i) => formatRecordId(prefix, year, last - count + 1 + i))
}

/**
 * Raises every `_sequences` id counter to what its PostgreSQL sequence has given out, so that
 * the table tells the truth to whoever reads it (a copy to another database). Only raises:
 * safe while the service runs. SQLite: the table is the counter already.
 */
export async function foldRecordIdCounters(database: Database): Promise<void> {
  if (database.dialect !== 'postgres') return
  const counters = await database.db
    .selectFrom(SYSTEM_TABLES.sequences)
    .select(['prefix', 'year', 'value'])
    .where('year', '>', 0)
    .execute()
  for (const counter of counters) {
    const prefix = String(counter['prefix'])
    const year = Number(counter['year'])
    const sequence = recordIdSequence(prefix, year)
    const { rows } = await sql<{ found: string | null }>`select to_regclass(${sequence})::text as found`.execute(
      database.db,
    )
    if (rows[0]?.found === null || rows[0]?.found === undefined) continue
    const given = await givenBy(database.db, sequence)
    if (given > Number(counter['value']))
      await database.db
        .updateTable(SYSTEM_TABLES.sequences)
        .set({ value: sql`greatest(value, ${given})` })
        .where('prefix', '=', prefix)
        .where('year', '=', year)
        .execute()
  }
}
