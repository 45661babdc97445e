// The versions of each record (D33): every write stores the record as it now
// is in `_versions`, in the write's own transaction: its field values as the record table holds
// them (an encrypted value as its ciphertext, bound to the record; never in clear), who and when,
// and its `_hash`, which the audit entry of that version names. One full copy per version, not a
// difference: a past version is one row to read, and key rotation re-encrypts it like a record.
import { META } from '../../compile/metadata.js'
import type { ModuleSpec } from '../../compile/types.js'
import type { Db, Row } from '../database.js'
import { SYSTEM_TABLES } from '../system-tables.js'
import { preparedQuery } from '../prepared.js'
import type { RecordCodec } from './codec.js'

/** One stored version of a record. */
export interface StoredVersion {
  readonly module: string
  readonly recordId: string
  readonly version: number
  /** `_modified` of that version. */
  readonly at: string
  readonly userId: string | null
  /** `_deleted` of that version (the removal's own version). */
  readonly deleted: string | null
  /** Field values by field name, as `codec.snapshot` keeps them. */
  readonly data: Row
  readonly hash: string
}

/** Columns of `_versions`, in the order a multi-row insert binds them. */
export const VERSION_COLUMNS = ['module', 'record_id', 'version', 'at', 'user_id', 'deleted', 'data', 'hash'] as const
/** Rows per INSERT, under both dialects' parameter limits. */
const ROWS_PER_INSERT = Math.floor(30_000 / VERSION_COLUMNS.length)

/** One version, the common case (a write of one record): compiled once, only re-bound. */
const insertOne = preparedQuery<(typeof VERSION_COLUMNS)[number]>((db, param) =>
  db.insertInto(SYSTEM_TABLES.versions).values(Object.fromEntries(VERSION_COLUMNS.map((c) => [c, param(c)]))),
)

/** The `_versions` row of a stored record, by column. */
export function versionRow(spec: ModuleSpec, codec: RecordCodec, row: Row): Row {
  return {
    module: spec.name,
    record_id: String(row[META.id]),
    version: Number(row[META.version]),
    at: String(row[META.modified]),
    user_id: (row[META.modifiedBy] as string | null | undefined) ?? null,
    deleted: (row[META.deleted] as string | null | undefined) ?? null,
    data: JSON.stringify(codec.snapshot(spec, row)),
    hash: String(row[META.hash]),
  }
}

/**
 * Stores `rows` (stored records, as written) as versions, inside the write's transaction.
 * `ifMissing`: a version already kept stays as it is (a record written before versions were kept
 * gets the version it has when it is next changed: the old values of that change).
 */
export async function storeVersions(
  trx: Db,
  spec: ModuleSpec,
  codec: RecordCodec,
  rows: readonly Row[],
  ifMissing = false,
): Promise<void> {
  const [only] = rows
  if (rows.length === 1 && only !== undefined && !ifMissing) {
    await trx.executeQuery(insertOne(trx).bind(versionRow(spec, codec, only)))
    return
  }
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    const values = rows.slice(start, start + ROWS_PER_INSERT).map((row) => versionRow(spec, codec, row))
    await trx
      .insertInto(SYSTEM_TABLES.versions)
      .values(values)
      .$if(ifMissing, (q) => q.onConflict((oc) => oc.columns(['module', 'record_id', 'version']).doNothing()))
      .execute()
  }
}

export function storedVersionOf(row: Row): StoredVersion {
  return {
    module: String(row['module']),
    recordId: String(row['record_id']),
    version: Number(row['version']),
    at: String(row['at']),
    userId: (row['user_id'] as string | null) ?? null,
    deleted: (row['deleted'] as string | null) ?? null,
    data: JSON.parse(String(row['data'])) as Row,
    hash: String(row['hash']),
  }
}

/** The kept versions of one record, oldest first; one only with `version`. */
export async function readVersions(
  db: Db,
  spec: ModuleSpec,
  recordId: string,
  version?: number,
): Promise<StoredVersion[]> {
  const rows = await db
    .selectFrom(SYSTEM_TABLES.versions)
    .selectAll()
    .where('module', '=', spec.name)
    .where('record_id', '=', recordId)
    .$if(version !== undefined, (q) => q.where('version', '=', version as number))
    .orderBy('version', 'asc')
    .execute()
  return rows.map(storedVersionOf)
}

/**
 * A version as a stored row of the record table, for the codec's `decodeForRead`: its values,
 * with the creation of `live` (which no later version changes) and its own modification.
 */
export function rowOfVersion(spec: ModuleSpec, codec: RecordCodec, live: Row, version: StoredVersion): Row {
  return {
    [META.id]: live[META.id],
    ...codec.fromSnapshot(spec, version.data),
    [META.created]: live[META.created],
    [META.createdBy]: live[META.createdBy],
    [META.modified]: version.at,
    [META.modifiedBy]: version.userId,
    [META.version]: version.version,
    [META.hash]: version.hash,
    [META.deleted]: version.deleted,
  }
}

/** Key ids of the encrypted values a version keeps, one per value (`v1.<key id>.…`). */
export function versionKeyIds(spec: ModuleSpec, data: Row): string[] {
  const ids: string[] = []
  for (const field of spec.encryptedFields) {
    const value = data[field.name]
    // A value under its record's own key (`r1.`, D41) counts through that key's wrapping instead.
    if (typeof value === 'string' && value.startsWith('v1.')) ids.push(value.slice(3, 11))
  }
  return ids
}

/**
 * The values of a version with every encrypted one not under the active key encrypted again
 * (same record context, so it reads back as before); undefined when none needs it.
 */
export function reencryptVersion(spec: ModuleSpec, codec: RecordCodec, version: StoredVersion): Row | undefined {
  const changed = codec.reencrypt(spec, { [META.id]: version.recordId, ...codec.fromSnapshot(spec, version.data) })
  const names = spec.encryptedFields.filter((f) => f.column in changed)
  if (names.length === 0) return undefined
  const data: Row = { ...version.data }
  for (const field of names) data[field.name] = changed[field.column]
  return data
}

/** Replaces the field values a kept version holds (a key rotation, a migration's rewrite). */
export async function rewriteVersionData(
  db: Db,
  version: Pick<StoredVersion, 'module' | 'recordId' | 'version'>,
  data: Row,
): Promise<void> {
  await db
    .updateTable(SYSTEM_TABLES.versions)
    .set({ data: JSON.stringify(data) })
    .where('module', '=', version.module)
    .where('record_id', '=', version.recordId)
    .where('version', '=', version.version)
    .execute()
}
