// The record store's types: what it offers (RecordStore), what it is built from
// (RecordStoreOptions) and what its callers pass and get. The store itself is store.ts.
import type { AuditQuery } from '../../records/audit-query.js'
import type { Filter, ListQuery } from '../../records/list-query.js'
import type { ModuleSpec } from '../../compile/types.js'
import type { ActingUser } from '../../records/acting-user.js'
import type { AuditEntry, AuditEvent } from '../audit/log.js'
import type { ShownAuditEntry } from '../audit/history-visibility.js'
import type { ChangeWatch } from '../change-watch.js'
import type { Database, Db, Row } from '../database.js'
import type { ReadAuditLog } from '../audit/read-audit.js'
import type { RecordCodec } from './codec.js'

export type ApiRecord = Readonly<Record<string, unknown>>

/**
 * One entry of a record's history, as its reader may see it (F2): a write carries its changed
 * fields' old and new values.
 */
export type HistoryEntry = ShownAuditEntry & {
  readonly changes?: Readonly<Record<string, { readonly old: unknown; readonly new: unknown }>>
}

export interface ReadOptions {
  /** Caller holds `{module}.descifrar`: encrypted fields are decrypted, else masked (D15). */
  readonly reveal: boolean
  /**
   * Holds `{module}.bloqueados` (D41): a blocked record may be read by id (GET, history, a past
   * version) with a motivo. Lists never show one, to anyone. Absent: false.
   */
  readonly readBlocked?: boolean
  /** Who reads: a read that reveals encrypted values is audited in their name. */
  readonly actor: string
  /**
   * Whose record scope, field rules and workflow roles apply; null: none (the
   * command line's operator, the service itself). Required so that no caller forgets it.
   */
  readonly user: ActingUser | null
  /**
   * `fields=`: the module fields to return; the others are not read out, and an
   * encrypted one is not decrypted. Undefined: every field.
   */
  readonly fields?: ReadonlySet<string> | undefined
  /** The request this read answers: its consultation entry names it. */
  readonly request?: RequestContext
  /** False: the caller logs this read itself (an export logs one `comunicar` entry). */
  readonly logConsultation?: boolean
  /**
   * Holds the audit trail's `ver` (D25): a record's history shows its consultations and who
   * asked, from where and why (F2). Absent: false, the record's changes only.
   */
  readonly auditor?: boolean
}

/** Who asked, from where and why: the request columns of a consultation entry. */
export interface RequestContext {
  readonly address: string | null
  readonly requestId: string | null
  /** The justification given (`X-Motivo`); null when none. */
  readonly motivo: string | null
}

export interface WriteOptions extends ReadOptions {
  /** If-Match version (D13); undefined: last write wins. */
  readonly ifMatch?: number | undefined
  /** The module's own rule for this write (the accounts module's, D21); undefined: none. */
  readonly hook?: WriteHook | undefined
}

/**
 * What a write hook decides on. `before`: the live record's values in clear, as the write's
 * transaction locked it (undefined on create: there is no row); `after`: the values the write
 * stores (undefined on remove).
 */
export interface WriteHookChange {
  readonly action: 'crear' | 'editar' | 'eliminar'
  readonly before: Readonly<Row> | undefined
  readonly after: Readonly<Row> | undefined
}

/**
 * A module's own rule for its writes, given by the caller that knows it (the accounts module's:
 * who may manage whose account, D21, and its username and password rules). On update and remove
 * it runs inside the write's transaction, on the row the write locked and then writes over:
 * no read before the lock decides (D13). On create, before anything else (there is no row).
 * It throws an AppError to refuse, or returns the values to write instead of `after` (undefined:
 * as given). A password it returns changed is hashed again, inside the transaction.
 */
export type WriteHook = (change: WriteHookChange) => Row | undefined

export interface BulkWriteOptions {
  readonly actor: string
  readonly batchSize?: number
  /** Called after each batch with the number of records inserted so far. */
  readonly onProgress?: (done: number) => void
  /** Per value, its creation metadata kept from a legacy system (`records import --keep-origin`). */
  readonly origins?: readonly (RecordOrigin | undefined)[]
}

/** A record's `_created` and `_created_by` from where it was first written (D9); the entry names them. */
export interface RecordOrigin {
  readonly created: string
  readonly createdBy: string
}

/** Which ids a `visibleIds` answer may hold: up to `limit`, of `ids` only when given. */
export interface VisibleIdsOptions {
  readonly limit: number
  readonly ids?: readonly string[]
  readonly includeDeleted?: boolean
  /** Blocked records too (D41): the live feed asks whether a block took one out of a view. */
  readonly includeBlocked?: boolean
}

/** One `?expand=` field: the caller holds `ver` on its target module; `reveal`: `descifrar` too. */
export interface Expansion {
  readonly field: string
  readonly reveal: boolean
}

export interface RecordStore {
  /**
   * A page of records and its exact total. Refused first, before anything is read, when the
   * reader may not ask it (checkList).
   */
  list(spec: ModuleSpec, query: ListQuery, options: ReadOptions): Promise<{ records: ApiRecord[]; total: number }>
  /**
   * Throws what a list with `query` would refuse this reader, reading nothing: 403 for a filter
   * on an encrypted field without `descifrar` (D16), then 403 for a field filtered or sorted by
   * that the reader cannot read (D27). For paths that filter records without listing them (the
   * live feed's subscriptions): one decision for all (list-access.ts).
   */
  checkList(
    spec: ModuleSpec,
    query: Pick<ListQuery, 'filters' | 'sort'>,
    options: Pick<ReadOptions, 'reveal' | 'user'>,
  ): void
  /** A live record; throws 404 `Registro no encontrado` otherwise (D10). */
  get(spec: ModuleSpec, id: string, options: ReadOptions): Promise<ApiRecord>
  /**
   * The record as a list with `filters` would show it to the reader (scope, field rules,
   * masking, read audit); undefined where that list would leave it out (the live feed).
   */
  visible(
    spec: ModuleSpec,
    id: string,
    filters: readonly Filter[],
    options: ReadOptions,
  ): Promise<ApiRecord | undefined>
  /** The ids (only) that such a list holds, up to `limit`; of `ids` only when given. */
  visibleIds(
    spec: ModuleSpec,
    filters: readonly Filter[],
    user: ActingUser | null,
    options: VisibleIdsOptions,
  ): Promise<string[]>
  /**
   * Each `field` of `records` replaced by its target record as the caller would GET it (scope,
   * field rules, masking, read audit of the target module); a target they may not see stays its
   * id. One query per field for the whole page.
   */
  expand(
    spec: ModuleSpec,
    records: readonly ApiRecord[],
    expansions: readonly Expansion[],
    options: Omit<ReadOptions, 'reveal'>,
  ): Promise<ApiRecord[]>
  create(spec: ModuleSpec, values: Row, options: WriteOptions): Promise<ApiRecord>
  /**
   * Creates many validated records in ONE transaction, inserted and audited in batches:
   * all of them or none (bulk import). Same ids, defaults, encryption and hashes as create; audited as
   * 'importar', and not held to the workflow's creation states (historical records keep theirs).
   */
  createMany(spec: ModuleSpec, values: readonly Row[], options: BulkWriteOptions): Promise<number>
  update(spec: ModuleSpec, id: string, changes: Row, options: WriteOptions): Promise<ApiRecord>
  remove(spec: ModuleSpec, id: string, options: WriteOptions): Promise<void>
  /**
   * The audit entries of one record in the reader's scope, deleted records included (D25); each
   * write with the old and new values it changed, shown as the record is.
   */
  history(spec: ModuleSpec, id: string, options: ReadOptions): Promise<HistoryEntry[]>
  /**
   * The record as it was at `version`, in the reader's scope, deleted records included (D25);
   * 404 for a version it never had or one not kept.
   */
  getVersion(spec: ModuleSpec, id: string, version: number, options: ReadOptions): Promise<ApiRecord>
  /** The audit trail, newest last (D25). */
  auditTrail(query: AuditQuery): Promise<{ entries: AuditEntry[]; total: number }>
  /** Appends audit entries that belong to no record write (logins, logouts). */
  audit(events: readonly AuditEvent[]): Promise<void>
  /** Records whose stored values failed their integrity check on a read since this process started. */
  integrityFailures(): number
}

/** A record read whose encrypted values failed their check. */
export interface IntegrityFailure {
  readonly module: string
  readonly recordId: string
  readonly version: number
  readonly fields: readonly string[]
}

export interface RecordStoreOptions {
  readonly database: Database
  /** Every module by name: references are checked and expanded across modules. */
  readonly modules: ReadonlyMap<string, ModuleSpec>
  readonly codec: RecordCodec
  readonly timezone: string
  readonly clock: () => Date
  readonly readAudit: ReadAuditLog
  /**
   * Told of every write of a module, inside its transaction: caches elsewhere expire.
   * Every writer passes one: a running service's caches rely on the bumps (D20).
   */
  readonly changes: ChangeWatch
  /** Runs inside each update's transaction, after the row is written (an account's sessions end). */
  readonly afterUpdate?: (trx: Db, spec: ModuleSpec, id: string, changes: Row, before: Row) => Promise<void>
  /** Told once per damaged record version (the service raises its integrity alert). */
  readonly onIntegrityFailure?: (failure: IntegrityFailure) => void
  /**
   * PostgreSQL (D38): the seal after a committed write failed. The write answers as done (it is:
   * record and pending entry committed together); the entry waits for the next seal. Without it
   * the write's caller gets the error.
   */
  readonly onSealError?: (error: unknown) => void
  /**
   * False: reads of personal data leave no consultation entry. Only for the bench's
   * side-by-side comparison: no setting of the service turns it off.
   */
  readonly consultationLog?: boolean
}
