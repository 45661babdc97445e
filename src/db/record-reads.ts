// Reads of module records: a list page with its exact total, one record by id. Encrypted
// values are decrypted or masked per caller (D15); a read that decrypts is audited.
import { META, ROW_COLUMN } from '../compile/metadata.js'
import type { ModuleSpec } from '../compile/types.js'
import { hiddenFields, withoutHidden } from '../records/field-rules.js'
import { resolveScope } from '../records/scope.js'
import { recordNotFound } from '../errors.js'
import { generationCache } from './change-watch.js'
import { VALUE_CONVERSIONS } from './dialects/values.js'
import { preparedPerModule } from './prepared.js'
import { isScoped, recordQuery } from './record-query.js'
import type { Row } from './database.js'
import type { ApiRecord, ReadOptions, RecordStore, RecordStoreOptions } from './record-store.js'
import { auditConsultation, type ConsultationDetail } from './reveal-audit.js'
import type { ListQuery } from '../records/list-query.js'
import type { RecordCodec } from './record-codec.js'

export type RecordReads = Pick<RecordStore, 'list' | 'get' | 'integrityFailures'>

/**
 * A list's criteria as the request gave them (filters, sort, page), each encrypted field's
 * value replaced by its keyed blind-index hashes, the ones the search compared (issue #15).
 */
export function criteriaOf(spec: ModuleSpec, query: ListQuery, codec: Pick<RecordCodec, 'blindIndexes'>): Row {
  const criteria: Row = {}
  for (const filter of query.filters) {
    if (filter.blind) {
      const field = spec.fields.find((f) => f.blindIndexColumn === filter.column)
      criteria[field?.name ?? filter.column] = { indice_ciego: [...codec.blindIndexes(filter.value)] }
    } else criteria[filter.column] = filter.value instanceof Date ? filter.value.toISOString() : filter.value
  }
  if (query.sort.column !== ROW_COLUMN) criteria['sort'] = `${query.sort.descending ? '-' : ''}${query.sort.column}`
  criteria['limit'] = query.limit
  criteria['offset'] = query.offset
  return criteria
}

export function createRecordReads(options: RecordStoreOptions): RecordReads {
  const { database, codec, readAudit } = options
  const consultation = (spec: ModuleSpec, rows: readonly Row[], read: ReadOptions, detail: ConsultationDetail) =>
    options.consultationLog === false ? undefined : auditConsultation(readAudit, spec, rows, read, detail)
  const { db } = database
  const conversions = VALUE_CONVERSIONS[database.dialect]
  /**
   * Totals of lists, per module and filter set, until the module's next write: an exact
   * count (API reference 4.4) that a large table pays once per write, not once per page (issue #7).
   */
  const totals = new Map<string, (key: string, count: () => Promise<number>) => Promise<number>>()
  function cachedTotal(spec: ModuleSpec, key: string, count: () => Promise<number>): Promise<number> {
    let cache = totals.get(spec.name)
    if (cache === undefined) totals.set(spec.name, (cache = generationCache<number>(options.changes, spec.name)))
    return cache(key, count)
  }
  /** Damaged record versions already reported by this process: each is alerted and audited once. */
  const damaged = new Set<string>()
  /**
   * Decodes a read; a value that fails its check is reported loudly but leaves the rest readable (issue #13 item 5).
   */
  function decodeRead(spec: ModuleSpec, row: Row, { reveal, actor }: ReadOptions): ApiRecord {
    const { record, failed } = codec.decodeForRead(spec, row, reveal)
    if (failed.length === 0) return record
    const failure = {
      module: spec.name,
      recordId: String(row[META.id]),
      version: Number(row[META.version]),
      fields: failed,
    }
    const key = `${failure.module}\u0000${failure.recordId}\u0000${failure.version}`
    if (!damaged.has(key)) {
      damaged.add(key)
      options.onIntegrityFailure?.(failure)
      void readAudit.record([
        {
          userId: actor,
          action: 'integridad',
          module: spec.name,
          recordId: failure.recordId,
          version: failure.version,
          recordHash: null,
          fields: failed,
        },
      ])
    }
    return record
  }

  const getQuery = preparedPerModule<'id'>((spec, param) =>
    recordQuery(db, spec, { user: null, dialect: database.dialect }).selectAll().where(META.id, '=', param('id')),
  )

  return {
    async list(spec, query, read) {
      // The caller's scope is part of the WHERE: pages and totals count only records in scope (#14).
      let base = recordQuery(db, spec, { user: read.user, dialect: database.dialect })
      for (const filter of query.filters) {
        const field = spec.fieldsByName.get(filter.column)
        base = filter.blind
          ? base.where(filter.column, 'in', [...codec.blindIndexes(filter.value)])
          : base.where(
              filter.column,
              '=',
              field === undefined ? filter.value : (conversions[field.storage].toDb(filter.value) as never),
            )
      }
      const direction = query.sort.descending ? 'desc' : 'asc'
      let page = base.selectAll().orderBy(query.sort.column, direction)
      if (query.sort.column !== ROW_COLUMN) page = page.orderBy(ROW_COLUMN, 'asc')
      const count = async () =>
        Number((await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst())?.['n'] ?? 0)
      const [rows, total] = await Promise.all([
        page.limit(query.limit).offset(query.offset).execute(),
        cachedTotal(spec, JSON.stringify([query.filters, resolveScope(spec, read.user, 'read') ?? null]), count),
      ])
      const hidden = hiddenFields(spec, read.user)
      const records = rows.map((row) => withoutHidden(decodeRead(spec, row, read), hidden))
      await consultation(spec, rows, read, {
        criteria: criteriaOf(spec, query, codec),
        searchedEncrypted: query.filters.some((f) => f.blind),
      })
      return { records, total }
    },

    async get(spec, id, read) {
      // Outside the caller's scope a record is 404, its existence not revealed (issue #14).
      const row = isScoped(spec, read.user)
        ? await recordQuery(db, spec, { user: read.user, dialect: database.dialect })
            .selectAll()
            .where(META.id, '=', id)
            .executeTakeFirst()
        : (await db.executeQuery(getQuery(spec).bind({ id }))).rows[0]
      if (row === undefined) throw recordNotFound()
      const record = withoutHidden(decodeRead(spec, row, read), hiddenFields(spec, read.user))
      await consultation(spec, [row], read, { recordId: id })
      return record
    },

    integrityFailures: () => damaged.size,
  }
}
