// Field encryption at rest (D14) and blind indexes (D16).
// Stored form: `v1.<keyId>.<iv>.<tag>.<ciphertext>` (base64url parts). The key id lets
// several keys coexist: the active one encrypts, every configured one decrypts.
// A value under its record's own data key (D41): `r1.<data key id>.<iv>.<tag>.<ciphertext>`; the
// data key itself is kept wrapped by the service key in the key store (keys/record-keys.ts).
import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync } from 'node:crypto'
import { integrityError, settingInvalid } from '../errors.js'
import { randomBytesPooled } from './random-pool.js'

export interface Keyring {
  /** Id of the key that encrypts new values. */
  readonly activeId: string
  readonly keys: ReadonlyMap<string, Buffer>
}

export interface FieldCipher {
  readonly activeKeyId: string
  encrypt(plaintext: string, context: string): string
  /** Throws an integrity error on an unknown key or a failed GCM tag: never garbage. */
  decrypt(stored: string, context: string): string
  keyIdOf(stored: string): string | undefined
  /** Blind index under the active key. */
  blindIndex(plaintext: string): string
  /** Blind indexes under every key: matches values not yet rotated. */
  blindIndexes(plaintext: string): readonly string[]
}

const VERSION = 'v1'

export const keyIdOf = (key: Buffer): string =>
  createHash('sha256').update('municipal-records key id').update(key).digest('hex').slice(0, 8)

/** Parses a base64 32-byte key; throws an operator error (SETTING_INVALID): startup refuses to go on. */
export function parseKey(base64: string, source: string): Buffer {
  const key = Buffer.from(base64.trim(), 'base64')
  if (key.length !== 32)
    throw settingInvalid(`${source}: la clave de cifrado debe ser de 32 bytes en base64 (tiene ${key.length})`)
  return key
}

export function createKeyring(keys: readonly Buffer[]): Keyring {
  const first = keys[0]
  if (first === undefined) throw settingInvalid('Se necesita al menos una clave de cifrado')
  return { activeId: keyIdOf(first), keys: new Map(keys.map((k) => [keyIdOf(k), k])) }
}

const indexKeyOf = (key: Buffer): Buffer =>
  Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'municipal-records blind index', 32))

export function createFieldCipher(keyring: Keyring): FieldCipher {
  const indexKeys = new Map([...keyring.keys].map(([id, key]) => [id, indexKeyOf(key)]))
  const activeKey = keyring.keys.get(keyring.activeId) as Buffer
  const activeIndexKey = indexKeys.get(keyring.activeId) as Buffer
  const hmac = (key: Buffer, plaintext: string) =>
    createHmac('sha256', key).update(plaintext, 'utf8').digest('base64url')

  return {
    activeKeyId: keyring.activeId,
    encrypt(plaintext, context) {
      const iv = randomBytesPooled(12)
      const cipher = createCipheriv('aes-256-gcm', activeKey, iv)
      cipher.setAAD(Buffer.from(context, 'utf8'))
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
      return [
        VERSION,
        keyring.activeId,
        iv.toString('base64url'),
        cipher.getAuthTag().toString('base64url'),
        body.toString('base64url'),
      ].join('.')
    },
    decrypt(stored, context) {
      // v1.<key id>.<iv>.<tag>.<body>, read by position: no array per value.
      const keyAt = stored.indexOf('.') + 1
      const ivAt = stored.indexOf('.', keyAt) + 1
      const tagAt = ivAt === 0 ? 0 : stored.indexOf('.', ivAt) + 1
      const bodyAt = tagAt === 0 ? 0 : stored.indexOf('.', tagAt) + 1
      const keyId = keyAt === 0 ? '' : ivAt === 0 ? stored.slice(keyAt) : stored.slice(keyAt, ivAt - 1)
      const key = keyring.keys.get(keyId)
      if (bodyAt === 0 || stored.slice(0, keyAt - 1) !== VERSION || key === undefined)
        throw integrityError(new Error(`${context}: valor cifrado con clave desconocida '${keyId}'`))
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(stored.slice(ivAt, tagAt - 1), 'base64url'))
        decipher.setAAD(Buffer.from(context, 'utf8'))
        decipher.setAuthTag(Buffer.from(stored.slice(tagAt, bodyAt - 1), 'base64url'))
        return decipher.update(stored.slice(bodyAt), 'base64url', 'utf8') + decipher.final('utf8')
      } catch (error) {
        throw integrityError(
          new Error(`${context}: el valor cifrado no verifica (alterado o de otro registro)`, { cause: error }),
        )
      }
    },
    keyIdOf: (stored) => (stored.startsWith(`${VERSION}.`) ? stored.split('.')[1] : undefined),
    blindIndex: (plaintext) => hmac(activeIndexKey, plaintext),
    blindIndexes: (plaintext) => [...indexKeys.values()].map((key) => hmac(key, plaintext)),
  }
}

/** The stored form of a value under a record's own data key (D41). */
export const RECORD_VALUE_PREFIX = 'r1.'

/** The data key id of a value under a record key, or undefined (a `v1` value, plain text). */
export function recordKeyIdOf(stored: string): string | undefined {
  if (!stored.startsWith(RECORD_VALUE_PREFIX)) return undefined
  const end = stored.indexOf('.', RECORD_VALUE_PREFIX.length)
  return end === -1 ? undefined : stored.slice(RECORD_VALUE_PREFIX.length, end)
}

/** AES-256-GCM under a record's data key, bound to `context` as a `v1` value is. */
export function encryptWithRecordKey(key: Buffer, keyId: string, plaintext: string, context: string): string {
  const iv = randomBytesPooled(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  cipher.setAAD(Buffer.from(context, 'utf8'))
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return `${RECORD_VALUE_PREFIX}${keyId}.${iv.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}.${body.toString('base64url')}`
}

/** Throws an integrity error on a failed GCM tag or a malformed value: never garbage. */
export function decryptWithRecordKey(key: Buffer, stored: string, context: string): string {
  const parts = stored.split('.')
  if (parts.length !== 5) throw integrityError(new Error(`${context}: valor cifrado mal formado`))
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(parts[2] as string, 'base64url'))
    decipher.setAAD(Buffer.from(context, 'utf8'))
    decipher.setAuthTag(Buffer.from(parts[3] as string, 'base64url'))
    return decipher.update(parts[4] as string, 'base64url', 'utf8') + decipher.final('utf8')
  } catch (error) {
    throw integrityError(
      new Error(`${context}: el valor cifrado no verifica (alterado o de otro registro)`, { cause: error }),
    )
  }
}
