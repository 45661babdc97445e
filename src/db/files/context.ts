// D43: what the parts of the evidence-file store share: the record and file lookups under the
// caller's rules, the file's row and key, and the custody entries appended on their own.
import { formatExactTimestamp } from '../../compile/time.js'
import { META } from '../../compile/metadata.js'
import type { FieldSpec, ModuleSpec } from '../../compile/types.js'
import { busy, fileNotFound, forbidden, recordNotFound } from '../../errors.js'
import type { ActingUser } from '../../records/acting-user.js'
import { hiddenFields } from '../../records/field-rules.js'
import { checkUpdate } from '../../records/workflow.js'
import { appendAudit, type AuditEvent } from '../audit/log.js'
import type { Row } from '../database.js'
import { checkBlockedRead, checkBlockedWrite } from '../records/blocked-records.js'
import { recordQuery } from '../records/query.js'
import type { ReadOptions } from '../records/types.js'
import { createBlobStore, type BlobPlace, type BlobStore } from './blobs.js'
import { fileKeyContext } from './rewrap.js'
import { FILE_TABLES } from './tables.js'
import type { FileStoreOptions, StoredFile } from './types.js'

/** Who reaches a record's files, and how: an upload, or a download or custody read. */
export type RecordAccess =
  | { readonly write: true; readonly user: ActingUser | null; readonly field: FieldSpec }
  | { readonly write: false; readonly read: ReadOptions }

export interface FileContext {
  readonly options: FileStoreOptions
  readonly blobs: BlobStore
  /** Now, as an audit entry's `at`. */
  now(): string
  /** The module's file field of that name, else 404. */
  fileField(spec: ModuleSpec, name: string): FieldSpec
  /**
   * The live record as the caller may see it (404) and, for a write, edit it (403); its id and
   * version. A blocked record (D41): its files are of its values, so a write is 403 for everyone
   * and a read as a GET of the record (records/blocked-records.ts). A write to a record in a
   * final state of its workflow, or whose state makes the field read-only, is 409 (F9) here,
   * before a byte of the upload is read; the store decides again under the row's lock.
   */
  checkRecord(spec: ModuleSpec, id: string, access: RecordAccess): Promise<Row>
  /** A field `user` may not read (`cannot_read`): 403. */
  checkReadable(spec: ModuleSpec, field: FieldSpec, user: ActingUser | null): void
  /** The file's row, else 404. */
  fileRow(spec: ModuleSpec, id: string, field: string, n: number): Promise<Row>
  storedOf(row: Row): StoredFile
  /** The file's own key, unwrapped. */
  keyOf(row: Row): Buffer
  placeOf(row: Row): BlobPlace
  /** Custody entries in a transaction of their own, committed before the caller goes on. */
  appendCustody(events: readonly AuditEvent[]): Promise<void>
}

export function fileContext(options: FileStoreOptions): FileContext {
  const { database, cipher, clock, timezone } = options
  const { db } = database
  const now = () => formatExactTimestamp(clock(), timezone)
  /** A field's value on the record as stored now, read without a lock. */
  const currentValues = async (spec: ModuleSpec, id: string) => {
    const row = (await db.selectFrom(spec.table.name).selectAll().where(META.id, '=', id).executeTakeFirst()) as
      Row | undefined
    return (name: string) => {
      const field = spec.fieldsByName.get(name)
      return field === undefined || row === undefined ? undefined : options.codec.plainValue(spec, field, row)
    }
  }
  return {
    options,
    blobs: createBlobStore(database, options.dataDir),
    now,
    fileField(spec, name) {
      const field = spec.fieldsByName.get(name)
      if (field?.uploaded !== true) throw fileNotFound()
      return field
    },
    async checkRecord(spec, id, access) {
      const user = access.write ? access.user : access.read.user
      const reach = (action: 'read' | 'write') =>
        recordQuery(db, spec, { user, action, dialect: database.dialect, includeBlocked: true })
          .select([META.id, META.version])
          .where(META.id, '=', id)
          .executeTakeFirst()
      const row = await reach('read')
      if (row === undefined) throw recordNotFound()
      if (access.write && (await reach('write')) === undefined)
        throw forbidden([
          { field: 'registro', message: `No puede modificar este registro (write_scope de ${spec.name})` },
        ])
      if (access.write) {
        await checkBlockedWrite(db, spec, id)
        if (spec.workflow !== undefined)
          checkUpdate(spec, access.user, await currentValues(spec, id), {
            [access.field.name]: [undefined], // any new list: an upload changes the field
          })
      } else await checkBlockedRead(db, spec, id, access.read)
      return row as Row
    },
    checkReadable(spec, field, user) {
      if (hiddenFields(spec, user)?.has(field.name) === true)
        throw forbidden([{ field: field.name, message: `El rol no puede leer el campo '${field.name}'` }])
    },
    async fileRow(spec, id, field, n) {
      const row = await db
        .selectFrom(FILE_TABLES.files)
        .selectAll()
        .where('module', '=', spec.name)
        .where('record_id', '=', id)
        .where('field', '=', field)
        .where('n', '=', n)
        .executeTakeFirst()
      if (row === undefined) throw fileNotFound()
      return row as Row
    },
    storedOf: (row) => ({
      n: Number(row['n']),
      sha256: String(row['sha256']),
      size: Number(row['size']),
      type: String(row['type']),
      name: String(row['name']),
    }),
    keyOf: (row) => Buffer.from(cipher.decrypt(String(row['file_key']), fileKeyContext(String(row['blob']))), 'base64'),
    placeOf: (row) => ({ module: String(row['module']), recordId: String(row['record_id']) }),
    async appendCustody(events) {
      try {
        await db.transaction().execute((trx) => appendAudit({ database, trx, events, at: now() }))
      } catch (error) {
        throw database.isBusy(error) ? busy(error) : error
      }
    },
  }
}
