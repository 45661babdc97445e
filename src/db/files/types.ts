// D43: what the evidence-file store answers and takes (store.ts assembles it from this folder).
import type { ModuleSpec } from '../../compile/types.js'
import type { AuditEntry } from '../audit/log.js'
import type { FieldCipher } from '../crypto.js'
import type { ReadOptions, RecordStoreOptions, WriteOptions } from '../records/types.js'

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
  /** A court package's content (D43), for the operator: the record now and the files it lists. */
  packageSource(spec: ModuleSpec, id: string): Promise<PackageSource>
  /** The packaged files' `fichero_exportacion` custody entries, committed before it returns. */
  recordExport(
    spec: ModuleSpec,
    id: string,
    files: readonly PackagedFile[],
    disclosure: ExportDisclosure,
  ): Promise<void>
  /** Every audit entry of the record, in chain order, and those not linked to the entry before them. */
  recordAudit(spec: ModuleSpec, id: string): Promise<RecordAudit>
}

/** A record's audit entries and the seqs among them whose `prev_hash` is not the hash of seq - 1. */
export interface RecordAudit {
  readonly entries: AuditEntry[]
  readonly unlinked: readonly number[]
}

/** A file a package holds: as its record lists it, its field, and its bytes opened on demand. */
export interface PackagedFile extends StoredFile {
  readonly field: string
  /** The digest and size its `fichero_ingreso` audit entry holds (hash-chained), or null without one. */
  readonly upload: { readonly sha256: unknown; readonly size: unknown } | null
  /** The plaintext, each sealed segment checked before its bytes are given. */
  bytes(): AsyncIterable<Buffer>
}

/** The record a package is asked of: not found (and erased when, if it was), or as it stands. */
export type PackageSource =
  | { readonly found: false; readonly erasedAt: string | null }
  | {
      readonly found: true
      readonly version: number
      readonly hash: string
      /** Deleted (`eliminar`, D10) and blocked (D41) records are found: the caller decides. */
      readonly deleted: boolean
      readonly blocked: boolean
      readonly files: readonly PackagedFile[]
    }

/** Who hands the package over, to whom and why (D29): the export entries name them. */
export interface ExportDisclosure {
  readonly actor: string
  readonly recipient: string
  readonly motivo: string
  /** The record's version packaged. */
  readonly version: number
  /** The package's file name. */
  readonly package: string
}

export interface FileStoreOptions extends RecordStoreOptions {
  readonly dataDir: string
  /** The service's field keys (following rotations): each file's own key is kept wrapped by the active one. */
  readonly cipher: FieldCipher
}
