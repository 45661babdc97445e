// The retention clocks of a module's records (D41): where each record's clock starts (`from`)
// and its last review, read under the caller's record scope (records/query.ts), for the queue and
// for a decision's answer. What is due is decided by records/retention-due.ts.
import { META } from '../../compile/metadata.js'
import type { ModuleSpec, RetentionSpec } from '../../compile/types.js'
import type { ActingUser } from '../../records/acting-user.js'
import { stateEnteredAt, type StateVersion } from '../../records/retention-due.js'
import type { Database, Db, Row } from '../database.js'
import { recordQuery } from '../records/query.js'
import { SYSTEM_TABLES } from '../system-tables.js'

/** A record's clock: where it starts (null: not started) and its last review. */
export interface RecordClock {
  readonly id: string
  readonly from: string | null
  readonly lastReview: string | null
  readonly reviewedBy: string | null
  /** A `bloquear` decision in force (D41): when and by whom; null: not blocked. */
  readonly blockedAt: string | null
  readonly blockedBy: string | null
  /** The reference of a legal hold in force (D41 `retener`); null: not held. */
  readonly hold: string | null
}

/** Ids per `IN (...)`: under both databases' limits on bound values. */
const IDS_PER_QUERY = 500

export interface ClockReadOptions {
  readonly database: Database
  /** A transaction, or the database's handle. */
  readonly db: Db
  readonly user: ActingUser | null
  /** One record only (a decision); undefined: every live record the user may see. */
  readonly id?: string
  /**
   * The queue: only the records that may be due are sent back (records/retention-due.ts
   * latestDueFrom): a starting point up to this time, any record with a review or a block, and
   * for a state clock the records in that state. The database still reads the module's live rows
   * (no index on `_created`); undefined: every record.
   */
  readonly dueBy?: string
  /** Deleted records (D10) too: an erasure past the longest keep takes them as well (run.ts). */
  readonly includeDeleted?: boolean
}

const stamp = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null)

/** The kept versions of `ids`, oldest first per record, with the value of the state field. */
async function stateHistories(
  db: Db,
  spec: ModuleSpec,
  field: string,
  ids: readonly string[],
): Promise<Map<string, StateVersion[]>> {
  const histories = new Map<string, StateVersion[]>()
  for (let start = 0; start < ids.length; start += IDS_PER_QUERY) {
    const rows = await db
      .selectFrom(SYSTEM_TABLES.versions)
      .select(['record_id', 'version', 'at', 'data'])
      .where('module', '=', spec.name)
      .where('record_id', 'in', ids.slice(start, start + IDS_PER_QUERY))
      .orderBy('record_id')
      .orderBy('version')
      .execute()
    for (const row of rows) {
      const data = JSON.parse(String(row['data'])) as Row
      const list = histories.get(String(row['record_id'])) ?? []
      list.push({ version: Number(row['version']), at: String(row['at']), state: data[field] })
      histories.set(String(row['record_id']), list)
    }
  }
  return histories
}

/** The live records' ids and `from` values the user may see (a state clock: only records in the state). */
async function startingPoints(spec: ModuleSpec, retention: RetentionSpec, options: ClockReadOptions) {
  const from = retention.from
  let query = recordQuery(options.db, spec, {
    user: options.user,
    dialect: options.database.dialect,
    includeDeleted: options.includeDeleted === true,
    // Blocked records too: a block is read here to be lifted (and kept out of the queue).
    includeBlocked: true,
  })
  if (options.id !== undefined) query = query.where(META.id, '=', options.id)
  const column = from.kind === 'created' ? undefined : (spec.fieldsByName.get(from.field)?.column ?? from.field)
  const columns: string[] = column === undefined ? [META.id, META.created] : [META.id, META.created, column]
  const dueBy = options.dueBy
  if (dueBy !== undefined && from.kind === 'state') query = query.where(column as string, '=', from.state)
  else if (dueBy !== undefined)
    query = query.where((eb) =>
      eb.or([
        eb(column ?? META.created, '<=', dueBy),
        eb(META.id, 'in', eb.selectFrom(SYSTEM_TABLES.retention).select('record_id').where('module', '=', spec.name)),
      ]),
    )
  const rows = (await query.select(columns as never[]).execute()) as Row[]
  const points = new Map<string, string | null>()
  if (from.kind === 'created') for (const row of rows) points.set(String(row[META.id]), stamp(row[META.created]))
  if (from.kind === 'field') for (const row of rows) points.set(String(row[META.id]), stamp(row[column as string]))
  if (from.kind === 'state') {
    const inState = rows.filter((row) => row[column as string] === from.state)
    for (const row of rows) points.set(String(row[META.id]), null)
    const histories = await stateHistories(
      options.db,
      spec,
      from.field,
      inState.map((row) => String(row[META.id])),
    )
    for (const row of inState) {
      const id = String(row[META.id])
      points.set(id, stateEnteredAt(histories.get(id) ?? [], from.state, String(row[META.created])))
    }
  }
  return points
}

/** Every clock of `spec` the user may see (or the one of `options.id`); empty when the module keeps none. */
export async function readClocks(spec: ModuleSpec, options: ClockReadOptions): Promise<RecordClock[]> {
  const retention = spec.retention
  if (retention === undefined) return []
  const points = await startingPoints(spec, retention, options)
  if (points.size === 0) return []
  let reviews = options.db
    .selectFrom(SYSTEM_TABLES.retention)
    .select(['record_id', 'reviewed_at', 'reviewed_by', 'blocked_at', 'blocked_by', 'hold_reference'])
    .where('module', '=', spec.name)
  if (options.id !== undefined) reviews = reviews.where('record_id', '=', options.id)
  const reviewed = new Map((await reviews.execute()).map((row) => [String(row['record_id']), row]))
  return [...points].map(([id, from]) => {
    const review = reviewed.get(id)
    return {
      id,
      from,
      lastReview: stamp(review?.['reviewed_at']),
      reviewedBy: stamp(review?.['reviewed_by']),
      blockedAt: stamp(review?.['blocked_at']),
      blockedBy: stamp(review?.['blocked_by']),
      hold: stamp(review?.['hold_reference']),
    }
  })
}
