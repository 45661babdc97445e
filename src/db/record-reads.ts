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
import { auditReveal } from './reveal-audit.js'

export type RecordReads = Pick<RecordStore, 'list' | 'get' | 'expand' | 'integrityFailures'>

export function createRecordReads(options: RecordStoreOptions): RecordReads {
  const { database, codec, readAudit } = options
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
      await auditReveal(readAudit, spec, rows, read)
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
      await auditReveal(readAudit, spec, [row], read)
      return record
    },

    async expand(spec, records, expansions, { actor, user }) {
      let out = [...records]
      for (const { field, reveal } of expansions) {
        const ref = spec.references.find((r) => r.field === field)
        const target = ref === undefined ? undefined : options.modules.get(ref.module)
        if (ref === undefined || target === undefined) continue
        const ids = [...new Set(out.map((r) => r[field]).filter((v): v is string => typeof v === 'string'))]
        if (ids.length === 0) continue
        // The target's own read path: live records in the caller's scope of the target module (#14).
        const rows = await recordQuery(db, target, { user, dialect: database.dialect })
          .selectAll()
          .where(META.id, 'in', ids)
          .execute()
        const read = { reveal, actor, user }
        const hidden = hiddenFields(target, user)
        const byId = new Map(
          rows.map((row) => [String(row[META.id]), withoutHidden(decodeRead(target, row, read), hidden)]),
        )
        // Reading an embedded target is a read of it: logged as a GET of it would be.
        await auditReveal(readAudit, target, rows, read)
        out = out.map((record) => {
          const embedded = byId.get(record[field] as string)
          return embedded === undefined ? record : { ...record, [field]: embedded }
        })
      }
      return out
    },

    integrityFailures: () => damaged.size,
  }
}
