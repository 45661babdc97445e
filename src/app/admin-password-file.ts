// The first superadmin's generated password when no person watches the start (systemd, a
// container: the log goes to central log tools, where a password must never be): it is written
// to DATA_DIR/admin-password, readable by the service's user only, and the log names the file.
// The file goes once the password it holds no longer logs in: after the first password change
// (API or `records user passwd`, every path goes through the store's update) or at a later start.
import bcrypt from 'bcryptjs'
import { randomBytes } from 'node:crypto'
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import type { AccountStore } from '../db/accounts/store.js'
import type { RecordStore } from '../db/records/types.js'
import type { AccountsSpec } from '../compile/types.js'

export const ADMIN_PASSWORD_FILE = 'admin-password'

export const adminPasswordFileOf = (dataDir: string): string => join(dataDir, ADMIN_PASSWORD_FILE)

/** Writes the password to DATA_DIR/admin-password: created 0600 under a temporary name, then renamed. */
export function writeAdminPasswordFile(dataDir: string, password: string): string {
  const file = adminPasswordFileOf(dataDir)
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`
  // `wx` with the mode: the file never exists with wider permissions, not even for an instant.
  const fd = openSync(temporary, 'wx', 0o600)
  try {
    writeSync(fd, `${password}\n`)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  renameSync(temporary, file)
  return file
}

/**
 * Removes DATA_DIR/admin-password when its password no longer opens `username`'s account
 * (changed, or the account gone); true if it removed it. Nothing to do without the file.
 */
export async function removeStaleAdminPassword(
  dataDir: string,
  username: string,
  accounts: AccountStore,
): Promise<boolean> {
  const file = adminPasswordFileOf(dataDir)
  let password: string
  try {
    password = readFileSync(file, 'utf8').replace(/\n$/, '')
  } catch {
    return false
  }
  const credentials = await accounts.credentials(username)
  if (credentials !== undefined && (await bcrypt.compare(password, credentials.passwordHash))) return false
  rmSync(file, { force: true })
  return true
}

/**
 * The store, whose committed password changes of an account remove a stale admin-password file
 * (the check costs one bcrypt comparison, and only while the file exists).
 */
export function withAdminPasswordFile(
  store: RecordStore,
  options: {
    readonly dataDir: string
    readonly username: string
    readonly accounts: AccountStore
    readonly spec: AccountsSpec
  },
): RecordStore {
  return {
    ...store,
    async update(spec, id, changes, writeOptions) {
      const record = await store.update(spec, id, changes, writeOptions)
      if (spec === options.spec.spec && typeof changes[options.spec.password] === 'string')
        // The change is committed: a failure here leaves the file for the next start to remove.
        await removeStaleAdminPassword(options.dataDir, options.username, options.accounts).catch(() => false)
      return record
    },
  }
}
