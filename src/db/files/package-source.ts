// D43: what a court package of one record is made of, read for the command line (the operator,
// no role's scope): the record's version and `_hash`, the files its file fields list at that
// version with a way to read each one's bytes, its audit entries, and the export custody
// entries a package adds to the chain. The zip itself is cli/evidence-package-zip.ts's.
import { META } from '../../compile/metadata.js'
import type { ModuleSpec } from '../../compile/types.js'
import { auditEntryFromRow, GENESIS_HASH, hashAuditEntry } from '../audit/log.js'
import type { Row } from '../database.js'
import { isBlocked } from '../records/blocked-records.js'
import { aboutRecord } from '../records/audit-reads.js'
import { recordQuery } from '../records/query.js'
import { SYSTEM_TABLES } from '../system-tables.js'
import type { FileContext } from './context.js'
import { openedSegments } from './segments.js'
import { FILE_TABLES } from './tables.js'
import type { ExportDisclosure, PackagedFile, PackageSource, RecordAudit } from './types.js'

/** The record and its listed files as they stand now; `found: false` with its erasure if it had one. */
export async function packageSource(context: FileContext, spec: ModuleSpec, id: string): Promise<PackageSource> {
  const { database, codec } = context.options
  const { db } = database
  const row = (await recordQuery(db, spec, {
    user: null,
    includeDeleted: true,
    includeBlocked: true,
    dialect: database.dialect,
  })
    .selectAll()
    .where(META.id, '=', id)
    .executeTakeFirst()) as Row | undefined
  if (row === undefined) {
    const tombstone = await db
      .selectFrom(SYSTEM_TABLES.tombstones)
      .select('erased_at')
      .where('module', '=', spec.name)
      .where('record_id', '=', id)
      .executeTakeFirst()
    return { found: false, erasedAt: tombstone === undefined ? null : String(tombstone['erased_at']) }
  }
  // The files the record lists at this version: an upload after the read is not in the package.
  const listed = new Set<string>()
  for (const field of spec.fields.filter((f) => f.uploaded === true)) {
    const value = codec.plainValue(spec, field, row)
    for (const entry of Array.isArray(value) ? (value as { n?: unknown }[]) : [])
      listed.add(`${field.name}/${String(entry.n)}`)
  }
  const rows = (await db
    .selectFrom(FILE_TABLES.files)
    .selectAll()
    .where('module', '=', spec.name)
    .where('record_id', '=', id)
    .orderBy('field')
    .orderBy('n')
    .execute()) as Row[]
  const uploads = await uploadEntries(context, spec, id)
  const files = rows
    .filter((r) => listed.has(`${String(r['field'])}/${String(r['n'])}`))
    .map((r): PackagedFile => ({
      field: String(r['field']),
      ...context.storedOf(r),
      upload: uploads.get(`${String(r['field'])}/${String(r['n'])}`) ?? null,
      bytes: () => openedSegments(context.keyOf(r), context.blobs.read(context.placeOf(r), String(r['blob']))),
    }))
  return {
    found: true,
    version: Number(row[META.version]),
    hash: String(row[META.hash]),
    deleted: row[META.deleted] !== null && row[META.deleted] !== undefined,
    blocked: await isBlocked(db, spec, id),
    files,
  }
}

/** Each file's `fichero_ingreso` criteria by `field/n`: what the hash chain says was uploaded. */
async function uploadEntries(
  context: FileContext,
  spec: ModuleSpec,
  id: string,
): Promise<Map<string, { sha256: unknown; size: unknown }>> {
  const rows = await context.options.database.db
    .selectFrom(SYSTEM_TABLES.audit)
    .selectAll()
    .where('module', '=', spec.name)
    .where('record_id', '=', id)
    .where('action', '=', 'fichero_ingreso')
    .orderBy('seq')
    .execute()
  const uploads = new Map<string, { sha256: unknown; size: unknown }>()
  for (const entry of rows.map((row) => auditEntryFromRow(row as Row))) {
    const criteria = entry.criteria ?? {}
    const key = `${String(criteria['campo'])}/${String(criteria['n'])}`
    if (!uploads.has(key)) uploads.set(key, { sha256: criteria['sha256'], size: criteria['size'] })
  }
  return uploads
}

/** One `fichero_exportacion` custody entry per packaged file, committed before the package is sealed. */
export async function recordExport(
  context: FileContext,
  spec: ModuleSpec,
  id: string,
  files: readonly PackagedFile[],
  disclosure: ExportDisclosure,
): Promise<void> {
  await context.appendCustody(
    files.map((file) => ({
      userId: disclosure.actor,
      action: 'fichero_exportacion' as const,
      module: spec.name,
      recordId: id,
      version: disclosure.version,
      recordHash: null,
      fields: [file.field],
      motivo: disclosure.motivo,
      recipient: disclosure.recipient,
      criteria: { campo: file.field, n: file.n, sha256: file.sha256, size: file.size, paquete: disclosure.package },
    })),
  )
}

/**
 * Every audit entry about the record, in chain order (its writes, consultations and custody, and
 * the list and search reads that returned it, as the audit query's `registro` selects), and
 * those whose `prev_hash` is not the hash of the entry at seq - 1 in the database, or whose own
 * hash is not their content's: the package signs only a chain that holds together.
 */
export async function recordAudit(context: FileContext, spec: ModuleSpec, id: string): Promise<RecordAudit> {
  const { db } = context.options.database
  const rows = await db
    .selectFrom(SYSTEM_TABLES.audit)
    .selectAll()
    .where('module', '=', spec.name)
    .where((eb) => aboutRecord(eb, id))
    .orderBy('seq')
    .execute()
  const entries = rows.map((row) => auditEntryFromRow(row as Row))
  const before = new Map<number, string>([[0, GENESIS_HASH]])
  const wanted = entries.map((e) => e.seq - 1).filter((seq) => seq > 0)
  for (let i = 0; i < wanted.length; i += 500) {
    const previous = await db
      .selectFrom(SYSTEM_TABLES.audit)
      .select(['seq', 'hash'])
      .where('seq', 'in', wanted.slice(i, i + 500))
      .execute()
    for (const row of previous) before.set(Number(row['seq']), String(row['hash']))
  }
  const unlinked = entries
    .filter((entry) => {
      const { hash, ...content } = entry
      return before.get(entry.seq - 1) !== entry.prev_hash || hashAuditEntry(content) !== hash
    })
    .map((entry) => entry.seq)
  return { entries, unlinked }
}
