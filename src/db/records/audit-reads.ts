// Reads of the audit trail: the filtered trail (D25); one record's history is
// history-reads.ts.
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely'
import { META } from '../../compile/metadata.js'
import { storedUsername, type AuditQuery } from '../../records/audit-query.js'
import { auditEntryFromRow, type AuditEntry } from '../audit/log.js'
import type { Db, DynamicDb } from '../database.js'
import type { RecordCodec } from './codec.js'
import { recordQuery } from './query.js'
import { SYSTEM_TABLES } from '../system-tables.js'
import type { RecordStoreOptions } from './types.js'
import type { Dialect } from '../../compile/field-types.js'

type AuditWhere = ExpressionBuilder<DynamicDb, string>

/** `LIKE` pattern: a JSON text holding `value` as a whole JSON string (an id in record_ids, a hash in criteria). */
const containsJsonString = (value: string): string => `%${JSON.stringify(value).replace(/[\\%_]/g, (c) => `\\${c}`)}%`

const contains = (column: 'record_ids' | 'criteria', value: string): Expression<SqlBool> =>
  sql<SqlBool>`${sql.ref(column)} like ${containsJsonString(value)} escape '\\'`

/**
 * The entries about record `id`: those naming it (its writes, single reads, custody) and the
 * reads that returned it among others (a list or search, its id in `record_ids`). The audit
 * query's `registro` and a court package's `auditoria.json` (D43) both select by this.
 */
export const aboutRecord = (eb: AuditWhere, id: string): Expression<SqlBool> =>
  eb.or([eb('record_id', '=', id), contains('record_ids', id)])

/**
 * "Who consulted this person": the records holding the value in one of the
 * fields, found through their blind indexes under every configured key (D16), deleted records
 * included (a consultation stays a consultation after the record is gone), whatever the scope
 * of whoever asks (the trail is not scoped); then the entries that wrote or read one of those
 * records (record_id), returned one in a list (record_ids) or searched for the value (its
 * blind-index hash in criteria, which matches zero-hit searches too).
 */
async function personCondition(
  db: Db,
  dialect: Dialect,
  codec: RecordCodec,
  person: NonNullable<AuditQuery['person']>,
): Promise<(eb: AuditWhere) => Expression<SqlBool>> {
  const hashes = [...codec.blindIndexes(person.value)]
  const found: { module: string; ids: string[] }[] = []
  for (const { module, field } of person.fields) {
    // Blocked records too (D41): the trail names ids and never values.
    const rows = await recordQuery(db, module, { includeDeleted: true, includeBlocked: true, user: null, dialect })
      .select(META.id)
      .where(field.blindIndexColumn as string, 'in', hashes)
      .execute()
    if (rows.length > 0) found.push({ module: module.name, ids: rows.map((r) => String(r[META.id])) })
  }
  return (eb) =>
    eb.or([
      ...found.map(({ module, ids }) => eb.and([eb('module', '=', module), eb('record_id', 'in', ids)])),
      ...found.flatMap(({ ids }) => ids.map((id) => contains('record_ids', id))),
      ...hashes.map((hash) => contains('criteria', hash)),
    ])
}

/** The audit trail, newest last (D25): a page of the entries `query` selects and their total. */
export async function auditTrail(
  { database, codec }: RecordStoreOptions,
  query: AuditQuery,
): Promise<{ entries: AuditEntry[]; total: number }> {
  const { db, dialect } = database
  let base = db.selectFrom(SYSTEM_TABLES.audit)
  for (const filter of query.filters) base = base.where(filter.column, '=', filter.value)
  // `at` is fixed-width text in the service time zone: text order is time order (D18).
  if (query.from !== undefined) base = base.where('at', '>=', query.from)
  if (query.to !== undefined) base = base.where('at', '<=', query.to)
  const { user, record, person } = query
  if (user !== undefined) {
    const { accounts } = user
    // Deleted accounts too: their entries stay in the trail.
    const named = db
      .selectFrom(accounts.spec.table.name)
      .select(META.id)
      .where(accounts.username, '=', storedUsername(user.value))
    base = base.where((eb) => eb.or([eb('user_id', '=', user.value), eb('user_id', 'in', named)]))
  }
  if (record !== undefined) base = base.where((eb) => aboutRecord(eb, record))
  if (person !== undefined) base = base.where(await personCondition(db, dialect, codec, person))
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('seq', 'asc').limit(query.limit).offset(query.offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
  ])
  return { entries: rows.map(auditEntryFromRow), total: Number(count?.['n'] ?? 0) }
}
