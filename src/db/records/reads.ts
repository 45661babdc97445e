// Reads of module records: a list page with its exact total, one record by id. Encrypted
// values are decrypted or masked per caller (D15); a read that decrypts is audited.
// Each is a function of this file over the store's ReadContext; store.ts hands them their calls.
import { META, ROW_COLUMN } from '../../compile/metadata.js'
import type { ModuleSpec } from '../../compile/types.js'
import { hiddenFields, recordReader, shownTo } from '../../records/field-rules.js'
import { queryReader, searchableFor } from '../../records/query-access.js'
import { resolveScope } from '../../records/scope.js'
import { recordNotFound, validationFailed } from '../../errors.js'
import { filterCondition } from './filter-sql.js'
import { checkListAccess } from './list-access.js'
import { allowBlockedRead, blockedCount, blockedFlagOf, withBlockedFlag } from './blocked-records.js'
import { createPageScope, type PageScope } from './scope-branches.js'
import { generationMemo, type GenerationMemo } from '../generation-memo.js'
import { preparedPerModule, type Prepared } from '../prepared.js'
import { everyLiveRow, isScoped, recordQuery, selectColumns } from './query.js'
import { plainPage } from './plain-page.js'
import type { Row } from '../database.js'
import type { Filter } from '../../records/list-query.js'
import type { RecordQuery } from './query.js'
import type { ApiRecord, Expansion, ReadOptions, RecordStoreOptions, VisibleIdsOptions } from './types.js'
import { storeConsultation as consultation } from './reveal-audit.js'
import { withTextSearch, type TextSearch } from './text-search-sql.js'
import type { ListQuery } from '../../records/list-query.js'
import type { ActingUser } from '../../records/acting-user.js'
import type { RecordCodec } from './codec.js'

/**
 * The fields a read decodes: those asked for (`fields=`) that the reader may read;
 * undefined when that is every field. The others are never decrypted.
 */
export function shownFields(
  spec: ModuleSpec,
  user: ReadOptions['user'],
  fields: ReadOptions['fields'],
): ReadonlySet<string> | undefined {
  const hidden = hiddenFields(spec, user)
  if (fields === undefined && hidden === undefined) return undefined
  return new Set(
    spec.fields
      .filter((f) => (fields === undefined || fields.has(f.name)) && !(hidden?.has(f.name) ?? false))
      .map((f) => f.name),
  )
}

/**
 * The columns a list reads when it shows some fields only (`fields=`, a hidden field): the
 * metadata and those fields' own columns, no other value and no blind index. Undefined: all.
 * A list screen that asks for the plain fields it shows reads no ciphertext at all.
 */
export function pageColumns(spec: ModuleSpec, shown: ReadonlySet<string> | undefined): readonly string[] | undefined {
  if (shown === undefined) return undefined
  const ofField = new Map<string, string>()
  for (const field of spec.fields) {
    ofField.set(field.column, field.name)
    if (field.blindIndexColumn !== undefined) ofField.set(field.blindIndexColumn, '')
  }
  return spec.table.columns
    .map((c) => c.name)
    .filter((column) => {
      const field = ofField.get(column)
      return field === undefined || shown.has(field)
    })
}

/**
 * A list's criteria as the request gave them (filters, sort, page), each encrypted field's
 * value replaced by its keyed blind-index hashes, the ones the search compared.
 */
export function criteriaOf(spec: ModuleSpec, query: ListQuery, codec: Pick<RecordCodec, 'blindIndexes'>): Row {
  const criteria: Row = {}
  const plain = (value: unknown): unknown => (value instanceof Date ? value.toISOString() : value)
  for (const filter of query.filters) {
    const key = filter.op === 'eq' ? filter.name : `${filter.name}[${filter.op}]`
    if (filter.blind && filter.op !== 'null') {
      const values = Array.isArray(filter.value) ? (filter.value as unknown[]) : [filter.value]
      criteria[key] = { indice_ciego: values.flatMap((v) => [...codec.blindIndexes(v)]) }
    } else criteria[key] = Array.isArray(filter.value) ? filter.value.map(plain) : plain(filter.value)
  }
  if (query.text !== undefined) criteria['q'] = query.text.join(' ')
  if (query.sort.length > 0) criteria['sort'] = query.sort.map((k) => `${k.descending ? '-' : ''}${k.column}`).join(',')
  criteria['limit'] = query.limit
  criteria['offset'] = query.offset
  return criteria
}

/** What every read of one store shares: the store's options, its caches and what it prepares once. */
export interface ReadContext extends RecordStoreOptions {
  readonly pageScope: PageScope
  /**
   * Totals of lists, per module and filter set, until the module's next write: an exact
   * count (API reference 4.4) that a large table pays once per write, not once per page. Also
   * the count of the module's blocked records (BLOCKED_COUNT, D41), under the same generation.
   */
  readonly totals: Map<string, GenerationMemo<number>>
  /** Damaged record versions already reported by this process: each is alerted and audited once. */
  readonly damaged: Set<string>
  readonly getQuery: (spec: ModuleSpec) => Prepared<'id'>
}

export function readContext(options: RecordStoreOptions): ReadContext {
  const { database } = options
  return {
    ...options,
    pageScope: createPageScope(database),
    totals: new Map(),
    damaged: new Set(),
    getQuery: preparedPerModule<'id'>((spec, param) =>
      withBlockedFlag(
        spec,
        recordQuery(database.db, spec, { user: null, dialect: database.dialect, includeBlocked: true }).selectAll(),
      ).where(META.id, '=', param('id')),
    ),
  }
}

export async function list(
  context: ReadContext,
  spec: ModuleSpec,
  query: ListQuery,
  read: ReadOptions,
): Promise<{ records: ApiRecord[]; total: number }> {
  const { database, codec } = context
  const { db } = database
  // Refused before anything is read, whoever lists (D16, D27): the route, an export, the next path.
  checkListAccess(spec, query, read)
  // The caller's scope is part of the WHERE: pages and totals count only records in scope.
  const scope = resolveScope(spec, read.user, 'read')
  const columns = pageColumns(spec, shownFields(spec, read.user, read.fields))
  const records = () =>
    filtered(context, spec, recordQuery(db, spec, { user: read.user, dialect: database.dialect }), query.filters)
  const hidden = hiddenFields(spec, read.user)
  let relevance: TextSearch | undefined
  if (query.text !== undefined) {
    // Only the searchable fields this caller may read (the rule GET /me/modulos offers `q` by).
    const reader = queryReader(spec, read.user?.role ?? null, read.reveal)
    const columns = spec.fields.filter((f) => searchableFor(f, reader)).map((f) => f.column)
    if (columns.length === 0)
      throw validationFailed([
        { field: 'q', message: `No hay campos de búsqueda de texto en '${spec.name}' para su rol` },
      ])
    const hidesSome = spec.fields.some((f) => f.def.searchable && hidden?.has(f.name) === true)
    relevance = withTextSearch(records(), database.dialect, spec.table.name, columns, query.text, hidesSome)
  }
  const search = relevance
  // Relevance (q without sort), or each key of `sort` in turn; then creation order: a stable order for pages.
  const inOrder = <Q extends RecordQuery>(q: Q): Q => {
    let out = q
    for (const key of query.sort) out = out.orderBy(key.column, key.descending ? 'desc' : 'asc') as Q
    return out.orderBy(ROW_COLUMN, 'asc') as Q
  }
  // Any page but the plain one; without text search, an or-ed scope hands each branch this
  // page's filters, order and reach.
  const otherPage = () => {
    let out = selectColumns(
      search === undefined
        ? filtered(
            context,
            spec,
            recordQuery(db, spec, {
              user: read.user,
              dialect: database.dialect,
              page: (rows) => inOrder(filtered(context, spec, rows, query.filters)).limit(query.offset + query.limit),
            }),
            query.filters,
          )
        : search.query,
      spec.table.name,
      columns,
    )
    if (search !== undefined && query.byRelevance === true)
      out = out.orderBy(search.rank, search.descending ? 'desc' : 'asc')
    return inOrder(out).limit(query.limit).offset(query.offset)
  }
  // The plain page (no filter, sort or text), a prepared statement per scope shape (plain-page.ts):
  // decided first, so that the other pages' builders are built only when they serve. An or-ed
  // scope's branches that add no record are left out of it (scope-branches.ts).
  const plain = search === undefined && query.filters.length === 0 && query.sort.length === 0
  // The module's generation, read once (on PostgreSQL a read of `_sequences`) for both caches
  // of this list: its total's and its or-ed scope's branches (scope-branches.ts). Not awaited
  // here: a page without an or-ed scope runs alongside the read.
  const generation = context.changes.generation(spec.name)
  // D41: while no record of the module is blocked (counted once per generation, as totals are: a
  // block, its lift and an erasure bump it), the plain page leaves out the blocked records'
  // filter, which SQLite weighs on every row the offset skips. The generation is looked at again
  // after the page: a block committed in between, in any process, has the page read again with
  // the filter. Only where that second look is cheap (`dataVersion`: SQLite, no read while
  // nothing moved); on PostgreSQL it would be a round trip.
  const noneBlocked = async () =>
    database.dataVersion !== undefined &&
    spec.retention !== undefined &&
    (await cachedTotal(context, spec, generation, BLOCKED_COUNT, () => blockedCount(db, spec))) === 0
  const plainRows = async (unblocked: boolean): Promise<readonly Row[]> =>
    (
      await db.executeQuery(
        plainPage(db, spec, await context.pageScope(spec, scope, generation), {
          dialect: database.dialect,
          limit: query.limit,
          offset: query.offset,
          columns,
          noneBlocked: unblocked,
        }),
      )
    ).rows
  const page = async (): Promise<readonly Row[]> => {
    if (!plain) return otherPage().execute()
    const unblocked = await noneBlocked()
    const rows = await plainRows(unblocked)
    if (unblocked && (await context.changes.generation(spec.name)) !== (await generation)) return plainRows(false)
    return rows
  }
  // The total is cached until the module's next write: its query is built only when counted.
  const count = async () => {
    const counted = (search?.query ?? (plain && scope === undefined ? everyLiveRow(records()) : records())).select(
      (eb) => eb.fn.countAll<number>().as('n'),
    )
    return Number((await counted.executeTakeFirst())?.['n'] ?? 0)
  }
  const [rows, total] = await Promise.all([
    page(),
    cachedTotal(
      context,
      spec,
      generation,
      JSON.stringify([query.filters, query.text ?? null, [...(hidden ?? [])], scope ?? null]),
      count,
    ),
  ])
  const reader = recordReader(spec, read.user, read.reveal)
  const decoded = rows.map((row) => shownTo(decodeRead(context, spec, row, read), reader))
  await consultation(context, spec, rows, read, {
    criteria: criteriaOf(spec, query, codec),
    searchedEncrypted: query.filters.some((f) => f.blind),
  })
  return { records: decoded, total }
}

/** A live record; throws 404 `Registro no encontrado` otherwise (D10). */
export async function get(context: ReadContext, spec: ModuleSpec, id: string, read: ReadOptions): Promise<ApiRecord> {
  const { database } = context
  // Outside the caller's scope a record is 404, its existence not revealed; blocked inside it, 403 (D41).
  const row = isScoped(spec, read.user)
    ? await withBlockedFlag(
        spec,
        recordQuery(database.db, spec, {
          user: read.user,
          dialect: database.dialect,
          includeBlocked: true,
        }).selectAll(),
      )
        .where(META.id, '=', id)
        .executeTakeFirst()
    : (await database.db.executeQuery(context.getQuery(spec).bind({ id }))).rows[0]
  if (row === undefined) throw recordNotFound()
  const blocked = allowBlockedRead(spec, blockedFlagOf(row), read)
  const record = shownTo(decodeRead(context, spec, row, read), recordReader(spec, read.user, read.reveal))
  await consultation(context, spec, [row], read, { recordId: id, ...(blocked ? { blocked } : {}) })
  return record
}

/** As get, with the list's filters: undefined where a GET would answer 404 or a list leave it out. */
export async function visible(
  context: ReadContext,
  spec: ModuleSpec,
  id: string,
  filters: readonly Filter[],
  read: ReadOptions,
): Promise<ApiRecord | undefined> {
  const { database } = context
  const row = await filtered(
    context,
    spec,
    recordQuery(database.db, spec, { user: read.user, dialect: database.dialect }),
    filters,
  )
    .selectAll()
    .where(META.id, '=', id)
    .executeTakeFirst()
  if (row === undefined) return undefined
  const record = shownTo(decodeRead(context, spec, row, read), recordReader(spec, read.user, read.reveal))
  await consultation(context, spec, [row], read, { recordId: id })
  return record
}

/** Ids only: nothing decrypted, nothing revealed. */
export async function visibleIds(
  context: ReadContext,
  spec: ModuleSpec,
  filters: readonly Filter[],
  user: ActingUser | null,
  options: VisibleIdsOptions,
): Promise<string[]> {
  const { database } = context
  const rows = await filtered(
    context,
    spec,
    recordQuery(database.db, spec, {
      user,
      dialect: database.dialect,
      ...(options.includeDeleted === true ? { includeDeleted: true } : {}),
      ...(options.includeBlocked === true ? { includeBlocked: true } : {}),
    }),
    filters,
  )
    .select(META.id)
    .$if(options.ids !== undefined, (q) => q.where(META.id, 'in', [...(options.ids ?? [])]))
    .limit(options.limit)
    .execute()
  return rows.map((r) => String(r[META.id]))
}

export async function expand(
  context: ReadContext,
  spec: ModuleSpec,
  records: readonly ApiRecord[],
  expansions: readonly Expansion[],
  { actor, user, request }: Omit<ReadOptions, 'reveal'>,
): Promise<ApiRecord[]> {
  const { database, modules } = context
  let out = [...records]
  for (const { field, reveal } of expansions) {
    const ref = spec.references.find((r) => r.field === field)
    const target = ref === undefined ? undefined : modules.get(ref.module)
    if (ref === undefined || target === undefined) continue
    const ids = [...new Set(out.map((r) => r[field]).filter((v): v is string => typeof v === 'string'))]
    if (ids.length === 0) continue
    // The target's own read path: live records in the caller's scope of the target module.
    const rows = await recordQuery(database.db, target, { user, dialect: database.dialect })
      .selectAll()
      .where(META.id, 'in', ids)
      .execute()
    // The request names the consultation: who, from where and why (F3).
    const read = { reveal, actor, user, ...(request === undefined ? {} : { request }) }
    const reader = recordReader(target, user, reveal)
    const byId = new Map(
      rows.map((row) => [String(row[META.id]), shownTo(decodeRead(context, target, row, read), reader)]),
    )
    // Reading an embedded target is a read of it: logged as a GET of it would be.
    await consultation(context, target, rows, read, {})
    out = out.map((record) => {
      const embedded = byId.get(record[field] as string)
      return embedded === undefined ? record : { ...record, [field]: embedded }
    })
  }
  return out
}

/** Records whose stored values failed their integrity check on a read since this store was made. */
export const integrityFailures = (context: ReadContext): number => context.damaged.size

/** The key of the module's blocked records' count among its totals (a list's key is a JSON array). */
const BLOCKED_COUNT = 'blocked'

/** A list's total from the module's memo: `generation` is the module's, as the list read it. */
async function cachedTotal(
  { totals }: ReadContext,
  spec: ModuleSpec,
  generation: Promise<number>,
  key: string,
  count: () => Promise<number>,
): Promise<number> {
  let cache = totals.get(spec.name)
  if (cache === undefined) totals.set(spec.name, (cache = generationMemo<number>()))
  return cache(await generation, key, count)
}

/**
 * Decodes a read; a value that fails its check is reported loudly but leaves the rest readable.
 */
function decodeRead(
  { codec, damaged, onIntegrityFailure, readAudit }: ReadContext,
  spec: ModuleSpec,
  row: Row,
  { reveal, actor, user, fields }: ReadOptions,
): ApiRecord {
  const { record, failed } = codec.decodeForRead(spec, row, reveal, undefined, shownFields(spec, user, fields))
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
    onIntegrityFailure?.(failure)
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

/** A list's filters (D11) on a query: lists and the live feed match records alike. */
function filtered(
  { database, codec }: ReadContext,
  spec: ModuleSpec,
  base: RecordQuery,
  filters: readonly Filter[],
): RecordQuery {
  let out = base
  for (const filter of filters)
    out = out.where((eb) => filterCondition(eb, spec, filter, database.dialect, codec.blindIndexes))
  return out
}
