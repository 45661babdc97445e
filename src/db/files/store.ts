// D43: evidence files: upload (streamed, checked, hashed and sealed under a key of its own, then
// listed by a new version of its record), download (a logged consultation, custody entry first),
// the custody entries of a file, and the verification of every stored file. The record's rules
// (scope, write_scope, field rules, workflow) are the store's, as for every write and read.
import { createHash, randomBytes } from 'node:crypto'
import { formatExactTimestamp } from '../../compile/time.js'
import { META } from '../../compile/metadata.js'
import type { FieldSpec, ModuleSpec } from '../../compile/types.js'
import { busy, fileNotFound, fileRejected, fileTypeNotAllowed, forbidden, recordNotFound } from '../../errors.js'
import type { ActingUser } from '../../records/acting-user.js'
import { checkWritable, hiddenFields } from '../../records/field-rules.js'
import { appendAudit, auditEntryFromRow, queueAudit, type AuditEvent } from '../audit/log.js'
import type { FieldCipher } from '../crypto.js'
import type { Row } from '../database.js'
import { recordQuery } from '../records/query.js'
import type { ReadOptions, RecordStoreOptions, WriteOptions } from '../records/types.js'
import { attach, writeContext } from '../records/writes.js'
import { SYSTEM_TABLES } from '../system-tables.js'
import { createBlobStore, type BlobPlace } from './blobs.js'
import { ingest, type Ingested } from './ingest.js'
import { fileKeyContext, rewrapFileKeys } from './rewrap.js'
import { openedSegments, sealedSegments } from './segments.js'
import { FILE_TABLES } from './tables.js'

/** One stored file as its record lists it and its upload answers. */
export interface StoredFile {
  readonly n: number
  readonly sha256: string
  readonly size: number
  readonly type: string
  readonly name: string
}

export interface UploadOptions extends WriteOptions {
  /** The declared Content-Type, checked against the field's `types` and the bytes. */
  readonly type: string
  readonly name: string
  /** `X-SHA256`, lower-case hex: a different digest of what arrived keeps nothing (422). */
  readonly sha256?: string | undefined
}

/** A custody entry of one file: from the audit chain, with its hash. */
export interface CustodyEntry {
  readonly seq: number
  readonly at: string
  readonly action: string
  readonly user_id: string | null
  readonly sha256: string | null
  readonly result?: string
  readonly address?: string | null
  readonly motivo?: string | null
  readonly hash: string
}

export interface FileVerification {
  readonly module: string
  readonly recordId: string
  readonly field: string
  readonly n: number
  readonly ok: boolean
  /** Why it failed: its digest or size differ, or its bytes do not open. */
  readonly problem?: string
}

export interface FileStore {
  upload(
    spec: ModuleSpec,
    id: string,
    field: string,
    body: AsyncIterable<Buffer | string>,
    options: UploadOptions,
  ): Promise<StoredFile>
  /** The file's bytes, after its custody entry (a consultation, D29) is in the audit chain. */
  download(
    spec: ModuleSpec,
    id: string,
    field: string,
    n: number,
    read: ReadOptions,
  ): Promise<{ file: StoredFile; bytes: AsyncIterable<Buffer> }>
  /** `auditor`: holds the audit trail's `ver`, and sees who downloaded, from where and why (F2). */
  custody(
    spec: ModuleSpec,
    id: string,
    field: string,
    n: number,
    read: ReadOptions & { auditor: boolean },
  ): Promise<CustodyEntry[]>
  /** Re-hashes every stored file; each check is a custody entry in `actor`'s name (null: the service). */
  verify(actor: string | null, onFile?: (result: FileVerification) => void): Promise<FileVerification[]>
  /** A key rotation's part (D14): every file key wrapped again under the active key; returns how many. */
  rewrapKeys(): Promise<number>
}

export interface FileStoreOptions extends RecordStoreOptions {
  readonly dataDir: string
  /** The service's field keys (following rotations): each file's own key is kept wrapped by the active one. */
  readonly cipher: FieldCipher
}

const CUSTODY_ACTIONS = ['fichero_ingreso', 'fichero_descarga', 'fichero_verificacion'] as const

export function createFileStore(options: FileStoreOptions): FileStore {
  const { database, cipher, clock, timezone } = options
  const { db } = database
  const writing = writeContext(options)
  const blobs = createBlobStore(database, options.dataDir)
  const now = () => formatExactTimestamp(clock(), timezone)

  const fileField = (spec: ModuleSpec, name: string): FieldSpec => {
    const field = spec.fieldsByName.get(name)
    if (field?.uploaded !== true) throw fileNotFound()
    return field
  }
  /** The live record as `user` may see it (404), and may edit it (`write`: else 403). */
  const checkRecord = async (spec: ModuleSpec, id: string, user: ActingUser | null, write: boolean) => {
    const reach = (action: 'read' | 'write') =>
      recordQuery(db, spec, { user, action, dialect: database.dialect })
        .select([META.id, META.version])
        .where(META.id, '=', id)
        .executeTakeFirst()
    const row = await reach('read')
    if (row === undefined) throw recordNotFound()
    if (write && (await reach('write')) === undefined)
      throw forbidden([
        { field: 'registro', message: `No puede modificar este registro (write_scope de ${spec.name})` },
      ])
    return row as Row
  }
  const fileRow = async (spec: ModuleSpec, id: string, field: string, n: number): Promise<Row> => {
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
  }
  const storedOf = (row: Row): StoredFile => ({
    n: Number(row['n']),
    sha256: String(row['sha256']),
    size: Number(row['size']),
    type: String(row['type']),
    name: String(row['name']),
  })
  const keyOf = (row: Row) =>
    Buffer.from(cipher.decrypt(String(row['file_key']), fileKeyContext(String(row['blob']))), 'base64')
  const placeOf = (row: Row): BlobPlace => ({ module: String(row['module']), recordId: String(row['record_id']) })
  const appendCustody = async (events: readonly AuditEvent[]) => {
    try {
      await db.transaction().execute((trx) => appendAudit({ database, trx, events, at: now() }))
    } catch (error) {
      throw database.isBusy(error) ? busy(error) : error
    }
  }

  async function upload(
    spec: ModuleSpec,
    id: string,
    name: string,
    body: AsyncIterable<Buffer | string>,
    upload: UploadOptions,
  ): Promise<StoredFile> {
    const field = fileField(spec, name)
    const allowed = field.def.types ?? []
    if (!allowed.includes(upload.type)) throw fileTypeNotAllowed(field.name, upload.type, allowed)
    checkWritable(spec, upload.user, { [field.name]: null })
    // Refused before a byte is read where the answer is known already; decided again under the lock.
    await checkRecord(spec, id, upload.user, true)
    const key = randomBytes(32)
    const result: Ingested = { sha256: '', size: 0 }
    const place = { module: spec.name, recordId: id }
    const blob = await blobs.put(place, sealedSegments(key, ingest(field, upload.type, body, result)))
    try {
      if (upload.sha256 !== undefined && upload.sha256 !== result.sha256)
        throw fileRejected('x-sha256', `el SHA-256 recibido (${result.sha256}) no coincide con el de X-SHA256`)
      const entry = (n: number): StoredFile => ({
        n,
        sha256: result.sha256,
        size: result.size,
        type: upload.type,
        name: upload.name,
      })
      const n = await attach(
        writing,
        spec,
        id,
        {
          field: field.name,
          entry: (n) => ({ ...entry(n) }),
          store: async (trx, n, version) => {
            const at = now()
            await trx
              .insertInto(FILE_TABLES.files)
              .values({
                module: spec.name,
                record_id: id,
                field: field.name,
                ...entry(n),
                blob,
                file_key: cipher.encrypt(key.toString('base64'), fileKeyContext(blob)),
                at,
                user_id: upload.actor,
              })
              .execute()
            await queueAudit({
              database,
              trx,
              at,
              events: [custodyEvent(spec, id, field, entry(n), upload, 'fichero_ingreso', version)],
            })
          },
        },
        upload,
      )
      return entry(n)
    } catch (error) {
      await blobs.discard(place, blob)
      throw error
    }
  }

  async function download(spec: ModuleSpec, id: string, name: string, n: number, read: ReadOptions) {
    const field = fileField(spec, name)
    const record = await checkRecord(spec, id, read.user, false)
    if (hiddenFields(spec, read.user)?.has(field.name) === true)
      throw forbidden([{ field: field.name, message: `El rol no puede leer el campo '${field.name}'` }])
    const row = await fileRow(spec, id, field.name, n)
    const key = keyOf(row)
    const file = storedOf(row)
    await appendCustody([custodyEvent(spec, id, field, file, read, 'fichero_descarga', Number(record[META.version]))])
    return { file, bytes: openedSegments(key, blobs.read(placeOf(row), String(row['blob']))) }
  }

  async function custody(
    spec: ModuleSpec,
    id: string,
    name: string,
    n: number,
    read: ReadOptions & { auditor: boolean },
  ) {
    const field = fileField(spec, name)
    await checkRecord(spec, id, read.user, false)
    if (hiddenFields(spec, read.user)?.has(field.name) === true)
      throw forbidden([{ field: field.name, message: `El rol no puede leer el campo '${field.name}'` }])
    await fileRow(spec, id, field.name, n)
    const rows = await db
      .selectFrom(SYSTEM_TABLES.audit)
      .selectAll()
      .where('module', '=', spec.name)
      .where('record_id', '=', id)
      .where('action', 'in', [...CUSTODY_ACTIONS])
      .orderBy('seq')
      .execute()
    return rows
      .map((row) => auditEntryFromRow(row as Row))
      .filter((e) => e.criteria?.['campo'] === field.name && e.criteria['n'] === n)
      .map((e): CustodyEntry => {
        // F2: who downloaded, from where and why only for the audit trail's holders.
        const shown = read.auditor || e.action !== 'fichero_descarga'
        const result = e.criteria?.['veredicto']
        return {
          seq: e.seq,
          at: e.at,
          action: e.action,
          user_id: shown ? e.user_id : null,
          sha256: typeof e.criteria?.['sha256'] === 'string' ? e.criteria['sha256'] : null,
          ...(typeof result === 'string' ? { result } : {}),
          ...(read.auditor ? { address: e.address, motivo: e.motivo } : {}),
          hash: e.hash,
        }
      })
  }

  async function checkOne(row: Row): Promise<FileVerification> {
    const where = {
      module: String(row['module']),
      recordId: String(row['record_id']),
      field: String(row['field']),
      n: Number(row['n']),
    }
    const expected = storedOf(row)
    let problem: string | undefined
    try {
      const hash = createHash('sha256')
      let size = 0
      for await (const bytes of openedSegments(keyOf(row), blobs.read(placeOf(row), String(row['blob'])))) {
        hash.update(bytes)
        size += bytes.length
      }
      const sha256 = hash.digest('hex')
      if (sha256 !== expected.sha256) problem = `SHA-256 ${sha256}, se esperaba ${expected.sha256}`
      else if (size !== expected.size) problem = `${size} bytes, se esperaban ${expected.size}`
    } catch (error) {
      problem = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error)
    }
    return problem === undefined ? { ...where, ok: true } : { ...where, ok: false, problem }
  }

  async function verify(actor: string | null, onFile?: (result: FileVerification) => void) {
    const rows = await db
      .selectFrom(FILE_TABLES.files)
      .selectAll()
      .orderBy('module')
      .orderBy('record_id')
      .orderBy('field')
      .orderBy('n')
      .execute()
    const results: FileVerification[] = []
    for (const row of rows as Row[]) {
      const result = await checkOne(row)
      const spec = options.modules.get(result.module)
      await appendCustody([
        {
          userId: actor,
          action: 'fichero_verificacion',
          module: result.module,
          recordId: result.recordId,
          version: null,
          recordHash: null,
          fields: [result.field],
          criteria: {
            campo: result.field,
            n: result.n,
            sha256: String(row['sha256']),
            veredicto: result.ok ? 'correcto' : 'alterado',
            ...(spec === undefined ? { modulo_retirado: true } : {}),
          },
        },
      ])
      results.push(result)
      onFile?.(result)
    }
    return results
  }

  const rewrapKeys = () => rewrapFileKeys(database, cipher, (trx) => options.codec.beforeWrite(trx))
  return { upload, download, custody, verify, rewrapKeys }
}

/** A custody entry of an upload or a download, naming the request (D29). */
function custodyEvent(
  spec: ModuleSpec,
  id: string,
  field: FieldSpec,
  file: StoredFile,
  read: ReadOptions,
  action: 'fichero_ingreso' | 'fichero_descarga',
  version: number,
): AuditEvent {
  return {
    userId: read.actor,
    action,
    module: spec.name,
    recordId: id,
    version,
    recordHash: null,
    fields: [field.name],
    address: read.request?.address ?? null,
    requestId: read.request?.requestId ?? null,
    motivo: read.request?.motivo ?? null,
    recordIds: action === 'fichero_descarga' ? [id] : null,
    criteria: { campo: field.name, n: file.n, sha256: file.sha256, size: file.size },
  }
}
