// A record's history with values and a past version of it (D33): the audit
// entries of the record, each write with the old and new values of the fields it changed, read
// from `_versions` under the same scope, field rules and masking as the record itself (D15),
// and logged as a consultation exactly as a GET is.
import { META } from '../../compile/metadata.js'
import type { ModuleSpec } from '../../compile/types.js'
import { recordNotFound, recordVersionNotFound } from '../../errors.js'
import { hiddenFields, recordHashShownTo, recordReader, shownTo } from '../../records/field-rules.js'
import { auditEntryFromRow, type AuditAction } from '../audit/log.js'
import type { Db, Row } from '../database.js'
import { SYSTEM_TABLES } from '../system-tables.js'
import { entriesShownTo } from '../audit/history-visibility.js'
import { recordQuery } from './query.js'
import { checkBlockedRead } from './blocked-records.js'
import type { ApiRecord, HistoryEntry, ReadOptions, RecordStoreOptions } from './types.js'
import { readVersions, rowOfVersion } from './versions.js'
import { storeConsultation as consultation } from './reveal-audit.js'
import type { RecordCodec } from './codec.js'

/** The actions that write a version: their entries carry the values they changed. */
const WRITES: ReadonlySet<AuditAction> = new Set(['crear', 'importar', 'editar', 'eliminar'])

/**
 * The audit entries of one record in the reader's scope, deleted records included (D25); each
 * write with the old and new values it changed, shown as the record is.
 */
export async function history(
  context: RecordStoreOptions,
  spec: ModuleSpec,
  id: string,
  read: ReadOptions,
): Promise<HistoryEntry[]> {
  const { database, codec } = context
  const { db } = database
  const live = await scopedRow(context, db, spec, id, read)
  const blocked = await checkBlockedRead(db, spec, id, read)
  // Versions before entries: an entry of a write made in between finds no version and shows no values.
  const versions = await readVersions(db, spec, id)
  const entries = (
    await db
      .selectFrom(SYSTEM_TABLES.audit)
      .selectAll()
      .where('module', '=', spec.name)
      .where('record_id', '=', id)
      // By the time of each request (D25): a consultation is sealed in a later batch than a
      // write made after it, so by `seq` alone it would show up after that write.
      .orderBy('at', 'asc')
      .orderBy('seq', 'asc')
      .execute()
  ).map(auditEntryFromRow)
  const rows = new Map(versions.map((v) => [v.version, rowOfVersion(spec, codec, live, v)]))
  const records = new Map([...rows].map(([version, row]) => [version, shown(codec, spec, row, read)]))
  const hidden = hiddenFields(spec, read.user)
  // Consultations, and who asked from where and why: auditors only (F2, history-visibility.ts).
  const out: HistoryEntry[] = entriesShownTo(entries, read.auditor === true).map((entry) => {
    const version = entry.version ?? 0
    const after = records.get(version)
    // Version 1 changes from nothing; a later one needs the version before it kept too.
    const before = version === 1 ? {} : records.get(version - 1)
    if (!WRITES.has(entry.action) || after === undefined || before === undefined) return entry
    const changes: Record<string, { old: unknown; new: unknown }> = {}
    for (const name of entry.fields) {
      const field = spec.fieldsByName.get(name)
      if (field === undefined || field.writeOnly || hidden?.has(name) === true) continue
      changes[name] = { old: before[name] ?? null, new: after[name] ?? null }
    }
    return { ...entry, changes }
  })
  // Reading a record's history is a consultation; `_historial`: what was read, values included.
  await consultation(context, spec, [live], read, {
    recordId: id,
    fields: ['_historial'],
    ...(blocked ? { blocked } : {}),
  })
  return withShownHashes(spec, out, new Map([...rows, [Number(live[META.version]), live]]), read)
}

/**
 * The record as it was at `version`, in the reader's scope, deleted records included (D25);
 * 404 for a version it never had or one not kept.
 */
export async function getVersion(
  context: RecordStoreOptions,
  spec: ModuleSpec,
  id: string,
  version: number,
  read: ReadOptions,
): Promise<ApiRecord> {
  const { database, codec } = context
  const live = await scopedRow(context, database.db, spec, id, read)
  const blocked = await checkBlockedRead(database.db, spec, id, read)
  const [stored] = await readVersions(database.db, spec, id, version)
  const current = Number(live[META.version])
  // A record written before versions were kept has its current version in its own row only.
  const row = stored !== undefined ? rowOfVersion(spec, codec, live, stored) : version === current ? live : undefined
  if (row === undefined) throw recordVersionNotFound(version, current)
  const record = shown(codec, spec, row, read)
  await consultation(context, spec, [row], read, { recordId: id, ...(blocked ? { blocked } : {}) })
  return record
}

/** The record in the reader's scope, deleted or not (D25), blocked or not (D41); 404 outside it. */
async function scopedRow(
  { database }: RecordStoreOptions,
  trx: Db,
  spec: ModuleSpec,
  id: string,
  read: ReadOptions,
): Promise<Row> {
  const row = await recordQuery(trx, spec, {
    includeDeleted: true,
    includeBlocked: true,
    user: read.user,
    dialect: database.dialect,
  })
    .selectAll()
    .where(META.id, '=', id)
    .executeTakeFirst()
  if (row === undefined) throw recordNotFound()
  return row
}

/** A stored row as this reader sees it: decrypted or masked (D15), unreadable fields absent. */
const shown = (codec: RecordCodec, spec: ModuleSpec, row: Row, read: ReadOptions): ApiRecord =>
  shownTo(codec.decodeForRead(spec, row, read.reveal).record, recordReader(spec, read.user, read.reveal))

/**
 * Each entry's `record_hash` as `_hash` is shown (F4): null, for a reader who does not read every
 * field, where the version it names had no salt (or is not kept, so its salt is unknown).
 */
function withShownHashes(
  spec: ModuleSpec,
  entries: HistoryEntry[],
  rows: ReadonlyMap<number, Row>,
  read: ReadOptions,
): HistoryEntry[] {
  const reader = recordReader(spec, read.user, read.reveal)
  if (reader.whole) return entries
  return entries.map((entry) => {
    const salt = rows.get(entry.version ?? 0)?.[META.salt]
    const hash = recordHashShownTo(entry.record_hash, salt !== null && salt !== undefined, reader)
    return hash === entry.record_hash ? entry : { ...entry, record_hash: hash }
  })
}
