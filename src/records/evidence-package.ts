// The court package of a record's evidence files (D43): what its manifest, its audit file and its
// seal say, built from what the package command read, and a package's files read back checked
// for their shape. Pure: the zip, the digests and the signature are the command line's
// (cli/evidence-package-zip.ts, cli/audit-checkpoint.ts).
import { auditHeadProblem, isRecord } from './signed-shape.js'

export const PACKAGE_KIND = 'municipal-records/paquete-probatorio' as const
export const MANIFEST_KIND = 'municipal-records/paquete-probatorio/manifiesto' as const
export const PACKAGE_AUDIT_KIND = 'municipal-records/paquete-probatorio/auditoria' as const

/** The package's own files, beside the originals under `ficheros/`. */
export const PACKAGE_FILES = {
  manifest: 'manifest.json',
  audit: 'auditoria.json',
  checkpoint: 'punto-de-control.json',
  seal: 'firma.json',
} as const

/**
 * The most a package's own JSON file may hold (16 MiB): `verify` reads each one whole, and a
 * record's audit entries fit far below it; `package` refuses to write a larger one.
 */
export const MAX_OWN_FILE = 16 * 1024 * 1024

/** An audit entry as the chain holds it (db/audit/log.ts AuditEntry), every column kept. */
export interface PackagedAuditEntry {
  readonly seq: number
  readonly hash: string
  readonly action: string
  readonly at: string
  readonly user_id: string | null
  readonly motivo: string | null
  readonly recipient: string | null
  readonly criteria: Readonly<Record<string, unknown>> | null
}

/** A custody entry of one file as the manifest lists it: its place and hash in the chain. */
export interface ManifestCustody {
  readonly seq: number
  readonly at: string
  readonly action: string
  readonly user_id: string | null
  readonly sha256: string | null
  readonly result?: string
  readonly recipient?: string | null
  readonly motivo?: string | null
  readonly hash: string
}

export interface ManifestFile {
  readonly campo: string
  readonly n: number
  readonly sha256: string
  readonly size: number
  readonly type: string
  readonly name: string
  /** Its path inside the zip. */
  readonly ruta: string
  readonly custodia: readonly ManifestCustody[]
}

export interface Manifest {
  readonly tipo: typeof MANIFEST_KIND
  readonly version: 1
  readonly modulo: string
  readonly id: string
  /** The record's version packaged and its `_hash` (D17). */
  readonly registro: { readonly version: number; readonly _hash: string; readonly bloqueado: boolean }
  readonly generado: string
  readonly zona_horaria: string
  readonly actor: string
  readonly destinatario: string
  readonly motivo: string
  readonly ficheros: readonly ManifestFile[]
}

export interface PackageAudit {
  readonly tipo: typeof PACKAGE_AUDIT_KIND
  readonly modulo: string
  readonly id: string
  readonly entradas: readonly PackagedAuditEntry[]
}

/** The audit chain's head when the package was sealed (db/audit/head.ts). */
export interface PackageHead {
  readonly seq: number
  readonly hash: string
  readonly at: string
  readonly entradas: number
}

/** What `firma.json` signs (the signature's keys are added by signDocument). */
export interface SealBody {
  readonly tipo: typeof PACKAGE_KIND
  readonly version: 1
  readonly modulo: string
  readonly id: string
  readonly firmado: string
  /** SHA-256 (hex) of each of the package's own files but the seal, by name. */
  readonly contenido: Readonly<Record<string, string>>
  readonly auditoria: PackageHead
}

/** The audit actions of a file's chain of custody (D43), the field, number and digest their criteria. */
export const CUSTODY_ACTIONS: readonly string[] = [
  'fichero_ingreso',
  'fichero_descarga',
  'fichero_verificacion',
  'fichero_exportacion',
]

/**
 * What a package's name never holds: control characters, folder separators, the characters
 * Windows refuses (`:<>"|?*`), the bidirectional controls that make `gnp.exe` show as `exe.png`,
 * and lone surrogates (not UTF-8: the zip's name would not read back as written).
 */
const UNSAFE =
  // eslint-disable-next-line no-control-regex -- control characters are what is replaced
  /[\u0000-\u001f\u007f-\u009f/\\:<>"|?*\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g
const MAX_NAME = 180

/** A name safe as the last part of a zip path: no folders, not hidden, no trailing dot or space, cut by code point. */
const safeName = (name: string): string => {
  const cleaned = name.replace(UNSAFE, '_').replace(/^\.+/, '_')
  const cut = [...cleaned]
    .slice(0, MAX_NAME)
    .join('')
    .replace(/[. ]+$/, '_')
  return cut === '' ? 'fichero' : cut
}

/** `ficheros/<field>/<n>-<name>`: unique by field and number whatever the names. */
export const packagedPath = (field: string, n: number, name: string): string =>
  `ficheros/${field}/${n}-${safeName(name)}`

/** The custody entries of file `n` of `field` among the record's entries, in chain order. */
export function custodyIn(entries: readonly PackagedAuditEntry[], field: string, n: number): ManifestCustody[] {
  return entries
    .filter((e) => CUSTODY_ACTIONS.includes(e.action) && e.criteria?.['campo'] === field && e.criteria['n'] === n)
    .map((e) => {
      const result = e.criteria?.['veredicto']
      const sha256 = e.criteria?.['sha256']
      return {
        seq: e.seq,
        at: e.at,
        action: e.action,
        user_id: e.user_id,
        sha256: typeof sha256 === 'string' ? sha256 : null,
        ...(typeof result === 'string' ? { result } : {}),
        ...(e.recipient === null ? {} : { recipient: e.recipient }),
        ...(e.motivo === null ? {} : { motivo: e.motivo }),
        hash: e.hash,
      }
    })
}

const isSha256 = (value: unknown): boolean => typeof value === 'string' && /^[0-9a-f]{64}$/.test(value)
const missingText = (value: Record<string, unknown>, keys: readonly string[]): string[] =>
  keys.filter((k) => typeof value[k] !== 'string')

/** Why `value` is not a package's seal (its first problem), or undefined. */
export function sealShapeProblem(value: unknown): string | undefined {
  if (!isRecord(value) || value['tipo'] !== PACKAGE_KIND)
    return `no es la firma de un paquete (se espera "tipo": "${PACKAGE_KIND}")`
  if (value['version'] !== 1) return `versión de paquete desconocida: ${JSON.stringify(value['version'])}`
  const missing = missingText(value, ['modulo', 'id', 'firmado', 'clave_publica', 'huella', 'firma'])
  if (missing.length > 0) return `faltan o no son texto: ${missing.join(', ')}`
  const contenido = value['contenido']
  if (!isRecord(contenido) || !Object.values(contenido).every(isSha256))
    return '"contenido" no es una lista de SHA-256 por fichero'
  return auditHeadProblem(value['auditoria'])
}

/** Why `value` is not a package's manifest (its first problem), or undefined. */
export function manifestShapeProblem(value: unknown): string | undefined {
  if (!isRecord(value) || value['tipo'] !== MANIFEST_KIND)
    return `no es un manifiesto (se espera "tipo": "${MANIFEST_KIND}")`
  const missing = missingText(value, ['modulo', 'id', 'generado', 'actor', 'destinatario', 'motivo'])
  if (missing.length > 0) return `faltan o no son texto: ${missing.join(', ')}`
  const registro = value['registro']
  if (!isRecord(registro) || !Number.isSafeInteger(registro['version']) || typeof registro['_hash'] !== 'string')
    return '"registro" no es {version, _hash}'
  const files = value['ficheros']
  const filesOk =
    Array.isArray(files) &&
    files.every(
      (f) =>
        isRecord(f) &&
        missingText(f, ['campo', 'type', 'name', 'ruta']).length === 0 &&
        Number.isSafeInteger(f['n']) &&
        Number.isSafeInteger(f['size']) &&
        isSha256(f['sha256']) &&
        Array.isArray(f['custodia']) &&
        f['custodia'].every((c) => isRecord(c) && Number.isSafeInteger(c['seq']) && typeof c['hash'] === 'string'),
    )
  if (!filesOk) return '"ficheros" no es una lista de {campo, n, sha256, size, type, name, ruta, custodia}'
  const paths = (files as { ruta: string }[]).map((f) => f.ruta)
  return new Set(paths).size === paths.length ? undefined : 'dos ficheros con la misma ruta'
}

/** Why `value` is not a package's audit file (its first problem), or undefined. */
export function packageAuditShapeProblem(value: unknown): string | undefined {
  if (!isRecord(value) || value['tipo'] !== PACKAGE_AUDIT_KIND)
    return `no es la auditoría de un paquete (se espera "tipo": "${PACKAGE_AUDIT_KIND}")`
  const entries = value['entradas']
  const ok =
    Array.isArray(entries) &&
    entries.every(
      (e) =>
        isRecord(e) &&
        Number.isSafeInteger(e['seq']) &&
        missingText(e, ['hash', 'prev_hash', 'action', 'at']).length === 0 &&
        Array.isArray(e['fields']),
    )
  return ok ? undefined : '"entradas" no es una lista de entradas de la cadena de auditoría'
}
