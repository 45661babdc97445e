// "What is held about this person" (D41, GET /interesados): the records of every module whose
// encrypted fields hold an identifier, found through their blind indexes under every configured
// key (D16), so values not yet rotated match. The one place that decides what a caller finds:
// the record scope of records/query.ts applies, fields the role may not read are not searched
// (D27), a motivo is required, and each record returned leaves a consultation entry (D29) that
// names it, the fields where the identifier is, and the identifier only as its keyed hashes.
import { INVALID } from '../../compile/field-types.js'
import { META, ROW_COLUMN } from '../../compile/metadata.js'
import type { FieldSpec, ModuleSpec } from '../../compile/types.js'
import { subjectMotivoRequired, validationFailed } from '../../errors.js'
import type { ActingUser } from '../../records/acting-user.js'
import { hiddenFields } from '../../records/field-rules.js'
import type { SubjectQuery } from '../../records/subject-query.js'
import type { AuditEvent } from '../audit/log.js'
import type { ReadAuditLog } from '../audit/read-audit.js'
import type { Database, Row } from '../database.js'
import type { RecordCodec } from './codec.js'
import { recordQuery } from './query.js'
import type { RequestContext } from './types.js'

/** One field of one record that holds the identifier. */
export interface SubjectMatch {
  readonly module: string
  readonly id: string
  readonly field: string
  /** Deleted (D10) but still held: the data is there until it is erased. */
  readonly deleted: boolean
}

export interface SubjectReadOptions {
  /** Whose record scope and field rules apply; null: none (the service itself). */
  readonly user: ActingUser | null
  /** Who asks: the consultation entries name them. */
  readonly actor: string
  /** The request; its motivo is required. */
  readonly request: RequestContext
}

export interface SubjectStore {
  /**
   * A page of the fields holding `query.value` in the records `options.user` may see, deleted
   * ones included, in module order, then creation order, then field order; and their total.
   * 400 without a motivo. Logs one consultation per record of the page (one without a record
   * when the page is empty).
   */
  find(
    modules: readonly ModuleSpec[],
    query: SubjectQuery,
    options: SubjectReadOptions,
  ): Promise<{ entries: SubjectMatch[]; total: number }>
}

export interface SubjectStoreOptions {
  readonly database: Database
  readonly codec: RecordCodec
  readonly readAudit: ReadAuditLog
  /** False: no consultation entries (the bench's comparison, as the record store's). */
  readonly consultationLog?: boolean
}

/** A field's blind-index hashes of `raw`, read as a filter on it reads it; none when it cannot hold it. */
function hashesOf(codec: RecordCodec, field: FieldSpec, raw: string): readonly string[] {
  const value = field.parseFilter === null ? raw : field.parseFilter(raw)
  return value === INVALID ? [] : codec.blindIndexes(value)
}

interface Searched {
  readonly field: FieldSpec
  readonly column: string
  readonly hashes: ReadonlySet<string>
}

/** The fields holding the value in the records of `spec` the user may see, in creation order. */
async function matchesIn(
  { database, codec }: SubjectStoreOptions,
  spec: ModuleSpec,
  value: string,
  user: ActingUser | null,
): Promise<(SubjectMatch & { version: number })[]> {
  const hidden = hiddenFields(spec, user)
  const searched: Searched[] = spec.fields.flatMap((field) => {
    const column = field.blindIndexColumn
    if (column === undefined || hidden?.has(field.name) === true) return []
    const hashes = hashesOf(codec, field, value)
    return hashes.length === 0 ? [] : [{ field, column, hashes: new Set(hashes) }]
  })
  if (searched.length === 0) return []
  // Deleted and blocked records too: what is held about a person, not what lists show (D41).
  const rows: Row[] = await recordQuery(database.db, spec, {
    includeDeleted: true,
    includeBlocked: true,
    user,
    dialect: database.dialect,
  })
    .select([META.id, META.version, META.deleted, ...searched.map((s) => s.column)])
    .where((eb) => eb.or(searched.map((s) => eb(s.column, 'in', [...s.hashes]))))
    .orderBy(ROW_COLUMN, 'asc')
    .execute()
  return rows.flatMap((row) =>
    searched
      .filter((s) => s.hashes.has(String(row[s.column])))
      .map((s) => ({
        module: spec.name,
        id: String(row[META.id]),
        field: s.field.name,
        deleted: row[META.deleted] !== null && row[META.deleted] !== undefined,
        version: Number(row[META.version]),
      })),
  )
}

/** One consultation per record of the page; a search that shows none is logged all the same. */
function consultations(
  page: readonly (SubjectMatch & { version: number })[],
  criteria: Readonly<Record<string, unknown>>,
  { actor, request }: SubjectReadOptions,
): AuditEvent[] {
  const common = {
    userId: actor,
    action: 'consultar' as const,
    recordHash: null,
    address: request.address,
    requestId: request.requestId,
    motivo: request.motivo,
    criteria,
  }
  if (page.length === 0) return [{ ...common, module: null, recordId: null, version: null, fields: [], recordIds: [] }]
  const byRecord = new Map<string, { module: string; id: string; version: number; fields: string[] }>()
  for (const match of page) {
    const key = `${match.module}\n${match.id}`
    const entry = byRecord.get(key) ?? { module: match.module, id: match.id, version: match.version, fields: [] }
    entry.fields.push(match.field)
    byRecord.set(key, entry)
  }
  return [...byRecord.values()].map((r) => ({
    ...common,
    module: r.module,
    recordId: r.id,
    version: r.version,
    fields: r.fields,
    recordIds: [r.id],
  }))
}

export function createSubjectStore(options: SubjectStoreOptions): SubjectStore {
  return {
    async find(modules, query, read) {
      const { motivo } = read.request
      if (motivo === null) throw subjectMotivoRequired()
      // The motivo is kept in clear in the entries: it must not carry what is kept only hashed.
      if (motivo.toLowerCase().includes(query.value.toLowerCase()))
        throw validationFailed([
          {
            field: 'X-Motivo',
            message: 'El motivo no puede incluir el identificador buscado: se guarda en claro en la auditoría',
          },
        ])
      const found: (SubjectMatch & { version: number })[] = []
      for (const spec of modules) found.push(...(await matchesIn(options, spec, query.value, read.user)))
      const page = found.slice(query.offset, query.offset + query.limit)
      // The identifier only as its keyed hashes under every key, as a search's criteria keep an
      // encrypted value (D29): `GET /auditoria?dni=` finds this consultation by them.
      const hashes = [...new Set(options.codec.blindIndexes(query.value))]
      const criteria = { valor: { indice_ciego: hashes }, limit: query.limit, offset: query.offset }
      if (options.consultationLog !== false) await options.readAudit.record(consultations(page, criteria, read))
      return {
        entries: page.map(({ module, id, field, deleted }) => ({ module, id, field, deleted })),
        total: found.length,
      }
    },
  }
}
