// What most subcommands work on: the settings, the compiled modules.yaml, the database
// migrated as the server would (safe changes only), the codec and the record store.
// No HTTP app is built: writes go through the same store, codec and audit chain as the API.
import { userInfo } from 'node:os'
import { compileService } from '../compile/service.js'
import type { ServiceSpec } from '../compile/types.js'
import { loadCommonPasswords, loadModulesConfig } from '../config/load.js'
import { createAccountStore, endSessionsOnCredentialChange, type AccountStore } from '../db/account-store.js'
import { createChangeWatch } from '../db/change-watch.js'
import { createDatabase } from '../db/connect.js'
import { createFieldCipher, createKeyring, type Keyring } from '../db/crypto.js'
import type { Database } from '../db/database.js'
import { checkKeyRegistry } from '../db/key-registry.js'
import { applyMigration } from '../db/migrate/apply.js'
import { ensureSystemTables } from '../db/migrate/system-tables.js'
import { createReadAuditLog } from '../db/read-audit.js'
import { createRecordCodec, type RecordCodec } from '../db/record-codec.js'
import { createRecordStore, type RecordStore } from '../db/record-store.js'
import { createAccountRules, type AccountRules } from '../records/account-rules.js'
import { loadSettings, type Settings } from '../settings.js'
import type { CommandInput } from './command.js'

export interface Environment {
  readonly settings: Settings
  readonly spec: ServiceSpec
  readonly database: Database
  readonly keyring: Keyring
  readonly codec: RecordCodec
  readonly store: RecordStore
  readonly accounts: AccountStore
  /** Canonical usernames and the password policy, as the API applies them. */
  readonly accountRules: AccountRules
  readonly clock: () => Date
  /** Who the audit chain names for writes made from the command line. */
  readonly actor: string
  close(): Promise<void>
}

export interface OpenOptions {
  /** Apply the safe migration steps as the server does at startup (default true). */
  readonly migrate?: boolean
  /** Settings from another environment than the process's (tests, key rotation). */
  readonly env?: CommandInput['env']
}

export const cliActor = (): string => `cli:${userInfo().username}`

export function settingsOf(input: CommandInput): Settings {
  return loadSettings(input.env, input.cwd)
}

/** Opens the database and its tools; the caller closes it. */
export async function openEnvironment(input: CommandInput, options: OpenOptions = {}): Promise<Environment> {
  const settings = loadSettings(options.env ?? input.env, input.cwd)
  const spec = compileService(loadModulesConfig(settings.modulesFile))
  const database = await createDatabase(settings.databaseUrl)
  try {
    const clock = () => new Date()
    const timezone = spec.service.timezone
    const keyring = createKeyring(settings.encryptionKeys)
    await ensureSystemTables(database)
    await checkKeyRegistry(database, keyring)
    const codec = createRecordCodec(database.dialect, createFieldCipher(keyring))
    if (options.migrate !== false) await applyMigration(database, spec.modules, { codec, clock, timezone, safeOnly: true })
    const readAudit = createReadAuditLog({ database, timezone, clock, onError: () => undefined })
    // Writes bump the generations a running service watches, so it sees them at once (D20).
    const changes = createChangeWatch(database)
    // A password change or a disable from the command line ends the account's tokens too.
    const afterUpdate = endSessionsOnCredentialChange(database, spec.accounts)
    const store = createRecordStore({ database, codec, timezone, clock, readAudit, changes, afterUpdate })
    return {
      settings, spec, database, keyring, codec, store, clock,
      accounts: createAccountStore(database, spec.accounts, changes),
      accountRules: createAccountRules(spec, loadCommonPasswords()),
      actor: cliActor(),
      async close() {
        await readAudit.close()
        await database.close()
      },
    }
  } catch (error) {
    await database.close()
    throw error
  }
}

/** Runs `work` on an open environment and closes it, whatever happens. */
export async function withEnvironment<T>(input: CommandInput, work: (env: Environment) => Promise<T>, options: OpenOptions = {}): Promise<T> {
  const env = await openEnvironment(input, options)
  try {
    return await work(env)
  } finally {
    await env.close()
  }
}

/** The module named on the command line, or a one-line reason listing the modules. */
export function moduleNamed(spec: ServiceSpec, name: string) {
  const module = spec.moduleByName.get(name)
  if (module === undefined) throw new Error(`Módulo desconocido '${name}'. Módulos: ${[...spec.moduleByName.keys()].join(', ')}`)
  return module
}
