// The encryption keys of one running process. The configured keys may grow while
// it runs (the key file is read again when a rotation signals it), and the key it encrypts
// with is the database's active key, checked inside every write transaction: no instance
// writes under a key that a rotation retired, whatever its own configuration lists first.
import { unavailable } from '../../errors.js'
import { createFieldCipher, createKeyring, type FieldCipher, type Keyring } from '../crypto.js'
import type { Database, Db } from '../database.js'
import { activeKeyOf, checkKeyRegistry, registeredKeys } from './registry.js'

export interface LiveKeys {
  /** Encrypts under the active key; decrypts and searches under every configured key. */
  readonly cipher: FieldCipher
  /** The configured keys; `activeId` is the database's active key. */
  keyring(): Keyring
  /** The configured first key: where a rotation started from this process moves the data. */
  readonly targetId: string
  /** Inside a write transaction, before encrypting: binds the write to the database's active key. */
  beforeWrite(trx: Db): Promise<void>
  /** Reads the configured keys again and the active key; returns registered keys still missing. */
  refresh(): Promise<string[]>
}

export async function openLiveKeys(database: Database, load: () => readonly Buffer[]): Promise<LiveKeys> {
  let configured = createKeyring(load())
  const targetId = configured.activeId
  let keyring: Keyring = { ...configured, activeId: await checkKeyRegistry(database, configured) }
  let current = createFieldCipher(keyring)

  /** Takes the configured keys (read again when asked or needed) and `activeId` if held; false if not. */
  function use(activeId: string, reload: boolean): boolean {
    if (reload || !configured.keys.has(activeId)) {
      try {
        configured = createKeyring(load())
      } catch {
        // An unreadable key file keeps the keys already loaded; the caller reports what is missing.
      }
    }
    const held = configured.keys.has(activeId)
    const next = held ? activeId : keyring.activeId
    // A key file that lost the key in use is not applied: values under it must stay readable.
    if (!configured.keys.has(next)) return held
    if (keyring.activeId !== next || keyring.keys !== configured.keys) {
      keyring = { activeId: next, keys: configured.keys }
      current = createFieldCipher(keyring)
    }
    return held
  }

  const cipher: FieldCipher = {
    get activeKeyId() {
      return current.activeKeyId
    },
    encrypt: (plaintext, context) => current.encrypt(plaintext, context),
    decrypt: (stored, context) => current.decrypt(stored, context),
    keyIdOf: (stored) => current.keyIdOf(stored),
    blindIndex: (plaintext) => current.blindIndex(plaintext),
    blindIndexes: (plaintext) => current.blindIndexes(plaintext),
  }

  return {
    cipher,
    targetId,
    keyring: () => keyring,
    async beforeWrite(trx) {
      const active = await activeKeyOf(database, trx, true)
      if (active === undefined || active === keyring.activeId) return
      if (!use(active, false))
        throw unavailable(
          new Error(
            `La clave activa '${active}' no está configurada en esta instancia: no se escribe con una clave retirada`,
          ),
        )
    },
    async refresh() {
      const active = (await activeKeyOf(database)) ?? keyring.activeId
      use(active, true)
      return (await registeredKeys(database.db)).filter((id) => !configured.keys.has(id))
    },
  }
}
