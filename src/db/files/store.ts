// D43: evidence files. An upload is streamed, checked (size, type on its bytes, digest), sealed
// under a key of its own, stored (blobs.ts) and then listed by a new version of its record; a
// download is a logged consultation; custody.ts lists a file's entries; verify.ts re-hashes every
// file. The record's rules (scope, write_scope, field rules, workflow) are the store's, as for
// every write and read; this file assembles the store from the others of this folder.
import { randomBytes } from 'node:crypto'
import type { ModuleSpec } from '../../compile/types.js'
import { META } from '../../compile/metadata.js'
import { fileRejected, fileTypeNotAllowed } from '../../errors.js'
import { checkWritable } from '../../records/field-rules.js'
import { queueAudit } from '../audit/log.js'
import type { ReadOptions } from '../records/types.js'
import { attach, writeContext } from '../records/writes.js'
import { fileContext, type FileContext } from './context.js'
import { custodyEvent, custodyOf } from './custody.js'
import { ingest, type Ingested } from './ingest.js'
import { packageSource, recordAudit, recordExport } from './package-source.js'
import { fileKeyContext, rewrapFileKeys } from './rewrap.js'
import { openedSegments, sealedSegments } from './segments.js'
import { FILE_TABLES } from './tables.js'
import type { FileStore, FileStoreOptions, StoredFile, UploadOptions } from './types.js'
import { verifyFiles } from './verify.js'

export type {
  CustodyEntry,
  ExportDisclosure,
  FileStore,
  FileStoreOptions,
  FileVerification,
  PackagedFile,
  PackageSource,
  StoredFile,
  UploadOptions,
} from './types.js'

export function createFileStore(options: FileStoreOptions): FileStore {
  const context = fileContext(options)
  const writing = writeContext(options)
  return {
    upload: (spec, id, field, body, upload) => uploadFile(context, writing, { spec, id, field, body }, upload),
    download: (spec, id, field, n, read) => downloadFile(context, spec, id, { field, n }, read),
    custody: (spec, id, field, n, read) => custodyOf(context, spec, id, { field, n }, read),
    verify: (actor, onFile) => verifyFiles(context, actor, onFile),
    rewrapKeys: () => rewrapFileKeys(options.database, options.cipher, (trx) => options.codec.beforeWrite(trx)),
    packageSource: (spec, id) => packageSource(context, spec, id),
    recordExport: (spec, id, files, disclosure) => recordExport(context, spec, id, files, disclosure),
    recordAudit: (spec, id) => recordAudit(context, spec, id),
  }
}

interface Upload {
  readonly spec: ModuleSpec
  readonly id: string
  readonly field: string
  readonly body: AsyncIterable<Buffer | string>
}

async function uploadFile(
  context: FileContext,
  writing: ReturnType<typeof writeContext>,
  { spec, id, field: name, body }: Upload,
  upload: UploadOptions,
): Promise<StoredFile> {
  const { database, cipher } = context.options
  const field = context.fileField(spec, name)
  const allowed = field.def.types ?? []
  if (!allowed.includes(upload.type)) throw fileTypeNotAllowed(field.name, upload.type, allowed)
  checkWritable(spec, upload.user, { [field.name]: null })
  // Refused before a byte is read where the answer is known already; decided again under the lock.
  await context.checkRecord(spec, id, { write: true, user: upload.user, field })
  const key = randomBytes(32)
  const result: Ingested = { sha256: '', size: 0 }
  const place = { module: spec.name, recordId: id }
  const blob = await context.blobs.put(place, sealedSegments(key, ingest(field, upload.type, body, result)))
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
    const store = async (trx: Parameters<typeof queueAudit>[0]['trx'], n: number, version: number) => {
      const at = context.now()
      const file_key = cipher.encrypt(key.toString('base64'), fileKeyContext(blob))
      await trx
        .insertInto(FILE_TABLES.files)
        .values({
          module: spec.name,
          record_id: id,
          field: field.name,
          ...entry(n),
          blob,
          file_key,
          at,
          user_id: upload.actor,
        })
        .execute()
      const event = custodyEvent(spec, id, field, entry(n), { ...upload, action: 'fichero_ingreso', version })
      await queueAudit({ database, trx, at, events: [event] })
    }
    const n = await attach(writing, spec, id, { field: field.name, entry: (n) => ({ ...entry(n) }), store }, upload)
    return entry(n)
  } catch (error) {
    await context.blobs.discard(place, blob)
    throw error
  }
}

async function downloadFile(
  context: FileContext,
  spec: ModuleSpec,
  id: string,
  where: { readonly field: string; readonly n: number },
  read: ReadOptions,
): Promise<{ file: StoredFile; bytes: AsyncIterable<Buffer> }> {
  const field = context.fileField(spec, where.field)
  const record = await context.checkRecord(spec, id, { write: false, read })
  context.checkReadable(spec, field, read.user)
  const row = await context.fileRow(spec, id, field.name, where.n)
  const key = context.keyOf(row)
  const file = context.storedOf(row)
  const version = Number(record[META.version])
  await context.appendCustody([custodyEvent(spec, id, field, file, { ...read, action: 'fichero_descarga', version })])
  return { file, bytes: openedSegments(key, context.blobs.read(context.placeOf(row), String(row['blob']))) }
}
