// Anchoring the audit chain: a checkpoint is the chain's head (seq, hash,
// at, count) signed with an Ed25519 key, in a small JSON file kept off the machine. Whoever
// rewrites the log afterwards (edits an entry and re-chains every hash after it) produces a
// chain that verifies on its own but no longer holds the checkpoint's hash at its seq.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { canonicalJson } from '../db/canonical.js'
import { commandFailed } from '../errors.js'

export const CHECKPOINT_KIND = 'municipal-records/punto-de-control-auditoria' as const
export const CHECKPOINT_KEY_FILE = 'audit-checkpoint.key'

export interface CheckpointHead {
  readonly seq: number
  readonly hash: string
  readonly at: string
  /** Entries in the chain up to and including `seq`. */
  readonly entradas: number
}

export interface Checkpoint extends CheckpointHead, SignedDocument {
  readonly tipo: typeof CHECKPOINT_KIND
  readonly version: 1
  /** When it was signed, in the service time zone. */
  readonly firmado: string
}

export interface CheckpointKey {
  readonly privatePem: string
  readonly publicDer: Buffer
  /** True when this call created the key pair. */
  readonly created: boolean
}

export const fingerprintOf = (publicDer: Buffer): string =>
  `SHA256:${createHash('sha256').update(publicDer).digest('base64').replace(/=+$/, '')}`

/** The public key file next to the private one: `<file>.pub`, PEM. */
export const publicKeyFileOf = (privateFile: string): string => `${privateFile.replace(/\.key$/, '')}.pub`

/** The signing key at `file`, created (mode 0600, its public key next to it) when missing. */
export function loadOrCreateKey(file: string): CheckpointKey {
  if (!existsSync(file)) {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519')
    const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
    try {
      writeFileSync(file, privatePem, { mode: 0o600, flag: 'wx' })
    } catch (error) {
      if ((error as { code?: string }).code !== 'EEXIST')
        throw commandFailed(`No se pudo crear la clave de los puntos de control ${file}: ${(error as Error).message}`)
      return loadOrCreateKey(file) // another run created it a moment ago
    }
    writeFileSync(publicKeyFileOf(file), publicKey.export({ type: 'spki', format: 'pem' }).toString(), { mode: 0o644 })
    return { privatePem, publicDer: publicKey.export({ type: 'spki', format: 'der' }), created: true }
  }
  return loadKey(file)
}

/**
 * The signing key at `file`, never created: for what must be signed with the key a court already
 * knows (a package, D43), where a new key would sign silently with an unknown fingerprint.
 */
export function loadKey(file: string): CheckpointKey {
  if (!existsSync(file))
    throw commandFailed(
      `No existe la clave de firma ${file}: no se crea una nueva para firmar (su huella no sería la que se comunicó). ` +
        'Revise AUDIT_CHECKPOINT_KEY_FILE o --key; la crea records audit checkpoint',
    )
  try {
    const privatePem = readFileSync(file, 'utf8')
    const key = createPrivateKey(privatePem)
    if (key.asymmetricKeyType !== 'ed25519') throw new Error('no es una clave Ed25519')
    return { privatePem, publicDer: createPublicKey(key).export({ type: 'spki', format: 'der' }), created: false }
  } catch (error) {
    throw commandFailed(`La clave de los puntos de control ${file} no se puede leer: ${(error as Error).message}`)
  }
}

const unsigned = (document: object): string => canonicalJson(document)

/** What a document signed with this key carries besides its content (a checkpoint, an acta de eliminación). */
export interface SignedDocument {
  /** The public key (SPKI DER, base64) that verifies `firma`. */
  readonly clave_publica: string
  /** `SHA256:<base64>` of the public key: compare it with the one kept apart. */
  readonly huella: string
  /** Ed25519 signature (base64) of the canonical JSON of every other key. */
  readonly firma: string
}

/**
 * `body` signed with `key`: the public key and its fingerprint added, then `firma` over the
 * canonical JSON of all of it, so that signatureHolds checks any such document offline.
 */
export function signDocument<T extends object>(body: T, key: CheckpointKey): T & SignedDocument {
  const named = { ...body, clave_publica: key.publicDer.toString('base64'), huella: fingerprintOf(key.publicDer) }
  const firma = sign(null, Buffer.from(unsigned(named)), key.privatePem).toString('base64')
  return { ...named, firma }
}

export function signCheckpoint(head: CheckpointHead, firmado: string, key: CheckpointKey): Checkpoint {
  return signDocument(
    {
      tipo: CHECKPOINT_KIND,
      version: 1 as const,
      seq: head.seq,
      hash: head.hash,
      at: head.at,
      entradas: head.entradas,
      firmado,
    },
    key,
  )
}

/** A checkpoint file read back: its content, or why it is not one. */
export function parseCheckpoint(text: string): Checkpoint {
  let value: Record<string, unknown>
  try {
    value = JSON.parse(text) as Record<string, unknown>
  } catch {
    throw commandFailed('El fichero no es un punto de control: no es JSON')
  }
  const ok =
    value !== null &&
    typeof value === 'object' &&
    value['tipo'] === CHECKPOINT_KIND &&
    Number.isSafeInteger(value['seq']) &&
    Number.isSafeInteger(value['entradas']) &&
    ['hash', 'at', 'firmado', 'clave_publica', 'huella', 'firma'].every((k) => typeof value[k] === 'string')
  if (!ok) throw commandFailed(`El fichero no es un punto de control (se espera "tipo": "${CHECKPOINT_KIND}")`)
  return value as unknown as Checkpoint
}

/** Whether `firma` is the signature of the rest under `clave_publica`; the fingerprint is recomputed. */
export function signatureHolds(document: SignedDocument): boolean {
  const { firma, ...body } = document
  try {
    const der = Buffer.from(document.clave_publica, 'base64')
    if (fingerprintOf(der) !== document.huella) return false
    const key = createPublicKey({ key: der, format: 'der', type: 'spki' })
    return verify(null, Buffer.from(unsigned(body)), key, Buffer.from(firma, 'base64'))
  } catch {
    return false
  }
}
