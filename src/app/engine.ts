// The one composition root of the engine: settings -> load -> compile -> connect -> migrate ->
// stores. The service (openService) builds its HTTP app on it; every `records` subcommand that
// touches the database works on it (cli/environment.ts). One place, so the two cannot drift:
// the same pool size, the same migration at start, the same read audit with its errors reported.
import { compileService } from '../compile/service.js'
import type { ServiceSpec } from '../compile/types.js'
import { lazyCommonPasswords, loadModulesConfig } from '../config/load.js'
import { createSecondFactorStore, type SecondFactorStore } from '../db/accounts/second-factors.js'
import { createAccountStore, endSessionsOnCredentialChange, type AccountStore } from '../db/accounts/store.js'
import { sealAudit } from '../db/audit/log.js'
import { createChangeWatch, type ChangeWatch } from '../db/change-watch.js'
import { createDatabase } from '../db/connect.js'
import type { Keyring } from '../db/crypto.js'
import type { Database } from '../db/database.js'
import type { WorkerScript } from '../db/audit/read-audit-writers.js'
import { openLiveKeys, type LiveKeys } from '../db/keys/live-keys.js'
import { openRecordKeys, withRecordKeys, type RecordKeys, type UnreadableKey } from '../db/keys/record-keys.js'
import { applyMigration } from '../db/migrate/apply.js'
import { ensureSystemTables } from '../db/system-tables.js'
import { createReadAuditLog, type ReadAuditStatus, type RefusedEntry } from '../db/audit/read-audit.js'
import { createRecordCodec, type RecordCodec } from '../db/records/codec.js'
import { createRecordStore } from '../db/records/store.js'
import { createFileStore, type FileStore } from '../db/files/store.js'
import { createRetentionStore, type RetentionStore } from '../db/retention/store.js'
import type { KeyDestroyFailure } from '../db/retention/state.js'
import { createSubjectStore, type SubjectStore } from '../db/records/subjects.js'
import type { IntegrityFailure, RecordStore } from '../db/records/types.js'
import { createAccountRules, type AccountRules } from '../records/account-rules.js'
import { withAdminPasswordFile } from './admin-password-file.js'
import { currentEncryptionKeys, type Settings } from './settings.js'

export interface EngineOptions {
  readonly clock?: () => Date
  /** Apply the safe migration steps of modules.yaml, as every start does (default true). */
  readonly migrate?: boolean
  /** A batch of read-audit entries could not be written (they stay queued for the next try). */
  readonly onReadAuditError: (error: unknown) => void
  /** A consultation entry the database refused (F1): logged, counted, never stored. */
  readonly onReadAuditRefused?: (entry: RefusedEntry) => void
  /** A read met stored values that fail their integrity check (once per damaged record version). */
  readonly onIntegrityFailure?: (failure: IntegrityFailure) => void
  /** A per-record data key's row does not unwrap (D41): once per key; its record reads as unreadable. */
  readonly onUnreadableRecordKey?: (failure: UnreadableKey) => void
  /** SQLite: an erased record's data keys could not be destroyed after its commit; left to the sweep (D41). */
  readonly onKeyDestroyFailure?: (failure: KeyDestroyFailure) => void
  /** PostgreSQL (D38): a committed write's seal failed; its entry waits for the next seal. */
  readonly onSealError: (error: unknown) => void
  /**
   * False: no consultation entries. Only `npm run bench` passes it, to measure
   * their cost side by side; no setting or environment variable reaches it.
   */
  readonly consultationLog?: boolean
  /**
   * False: new values go under the service key, not per-record keys (D41). Only `npm run bench`
   * passes it, to measure their cost side by side; no setting or environment variable reaches it.
   */
  readonly recordKeys?: boolean
  /**
   * SQLite: the key database of the per-record keys (D41), when not the one beside the database
   * file. `records restore` checks a staged copy with the installation's key database.
   */
  readonly recordKeysFile?: string
  /**
   * Destroy at open the data keys of tombstoned records (a crash between an erasure and its keys,
   * D41; default true). False when the engine only checks a staged copy (`records restore`): its
   * tombstones are not the live database's, and with the installation's key store a sweep would
   * destroy the keys of live records that reuse an erased id, even if the restore is refused.
   */
  readonly sweepRecordKeys?: boolean
  /**
   * How long a consultation entry may wait in the buffer (read-audit.ts, default 1 s). Only the
   * tests pass it, to read the entries a moment after the request instead of a second; no
   * setting or environment variable reaches it.
   */
  readonly readAuditDelayMs?: number
  /**
   * The consultation log's writer thread as the tests start it: the compiled module without the
   * test process's loaders (db/audit/read-audit-writers.ts). No setting reaches it.
   */
  readonly readAuditWorker?: WorkerScript
  /**
   * Set by `records serve` when it runs the bundle: the id of that build. A start with the same
   * modules.yaml and the same build reuses the validation kept in DATA_DIR (config/validated-cache.ts).
   */
  readonly programId?: string
  /**
   * Seal the audit entries a crash left pending (PostgreSQL, D38) once the engine is open
   * (default true). False only for `records audit verify`, which reports them instead.
   */
  readonly sealAudit?: boolean
}

export interface Engine {
  readonly settings: Settings
  readonly spec: ServiceSpec
  readonly database: Database
  /** The configured keys; `activeId`: the key every write uses, the database's. */
  readonly keyring: Keyring
  /** The keys as they follow a rotation while this process runs. */
  readonly keys: LiveKeys
  /** The generations every instance watches (D20); also carries the key signal. */
  readonly changes: ChangeWatch
  readonly codec: RecordCodec
  /** The per-record data keys (D41) and their store, apart from the database's backups. */
  readonly recordKeys: RecordKeys
  readonly store: RecordStore
  /** The retention queue and its decisions (D41). */
  readonly retention: RetentionStore
  /** A person's records across modules, by an identifier (D41, GET /interesados). */
  readonly subjects: SubjectStore
  /** Evidence files with their chain of custody (D43). */
  readonly files: FileStore
  readonly accounts: AccountStore
  /** Each account's second factors and recovery codes (D42). */
  readonly factors: SecondFactorStore
  /** Canonical usernames and the password policy, for every account write. */
  readonly accountRules: AccountRules
  readonly clock: () => Date
  /** Migration steps applied at this start, in plain words. */
  readonly migrated: readonly string[]
  /** Revealing reads recorded but not written to the audit trail (after close: the ones lost). */
  unwrittenReads(): number
  /** The consultation log's writer: what /health reports (F1, F12). */
  readAuditStatus(): ReadAuditStatus
  /** Writes the pending read-audit entries, then closes the database. */
  close(): Promise<void>
}

/** Opens the engine on `settings`; the caller closes it. On a failure nothing stays open. */
export async function openEngine(settings: Settings, options: EngineOptions): Promise<Engine> {
  const cache =
    options.programId === undefined
      ? undefined
      : { dir: settings.dataDir, programId: options.programId, secret: settings.jwtSecret }
  const spec = compileService(loadModulesConfig(settings.modulesFile, cache))
  const opened = await createDatabase(settings.databaseUrl, { poolSize: settings.databasePoolSize })
  let database: Database = opened
  try {
    const clock = options.clock ?? (() => new Date())
    const timezone = spec.service.timezone
    await ensureSystemTables(database)
    const keys = await openLiveKeys(database, () => currentEncryptionKeys(settings))
    const keysOpened = await openRecordKeys({
      database: opened,
      cipher: keys.cipher,
      ...(options.recordKeysFile === undefined ? {} : { file: options.recordKeysFile }),
      disabled: options.recordKeys === false,
      ...(options.onUnreadableRecordKey === undefined ? {} : { onUnreadableKey: options.onUnreadableRecordKey }),
    })
    // Every result passes by the record keys: the data keys its values name are loaded before the
    // codec reads them, one query per result at most (D41).
    database = withRecordKeys(opened, keysOpened)
    // Keys of records erased just before a crash (SQLite: destroyed after the erasure's commit).
    if (options.sweepRecordKeys !== false) await keysOpened.sweep(spec.modules)
    const codec = createRecordCodec(database.dialect, keys.cipher, keys.beforeWrite, keysOpened)
    const { applied } =
      options.migrate === false
        ? { applied: [] }
        : await applyMigration(database, spec.modules, { codec, clock, timezone, safeOnly: true })
    const readAudit = createReadAuditLog({
      database,
      timezone,
      clock,
      onError: options.onReadAuditError,
      ...(options.readAuditDelayMs === undefined ? {} : { maxDelayMs: options.readAuditDelayMs }),
      ...(options.readAuditWorker === undefined ? {} : { workerScript: options.readAuditWorker }),
      ...(options.onReadAuditRefused === undefined ? {} : { onRefused: options.onReadAuditRefused }),
    })
    // Writes bump the generations a running service watches, so every instance sees them at once (D20).
    const changes = createChangeWatch(database)
    // Entries a crash left between a write's commit and its seal join the chain now (D38).
    if (options.sealAudit !== false) await sealAudit(database, changes)
    // A password change or a change of the active flag ends the account's tokens.
    const afterUpdate = endSessionsOnCredentialChange(database, spec.accounts)
    const integrity = options.onIntegrityFailure === undefined ? {} : { onIntegrityFailure: options.onIntegrityFailure }
    const consultationLog = options.consultationLog === false ? { consultationLog: false } : {}
    const accounts = createAccountStore(database, spec.accounts, changes)
    const recordOptions = {
      database,
      modules: spec.moduleByName,
      codec,
      timezone,
      clock,
      readAudit,
      changes,
      afterUpdate,
      onSealError: options.onSealError,
      ...integrity,
      ...consultationLog,
    }
    const records = createRecordStore(recordOptions)
    // The first password change removes DATA_DIR/admin-password, whichever path makes it.
    const store = withAdminPasswordFile(records, {
      dataDir: settings.dataDir,
      username: settings.adminUsername,
      accounts,
      spec: spec.accounts,
    })
    return {
      settings,
      spec,
      database,
      codec,
      recordKeys: keysOpened,
      store,
      retention: createRetentionStore({
        database,
        timezone,
        clock,
        modules: spec.moduleByName,
        changes,
        accountsModule: spec.accounts.spec.name,
        dataDir: settings.dataDir,
        recordKeys: keysOpened,
        ...(options.onKeyDestroyFailure === undefined ? {} : { onKeyDestroyFailure: options.onKeyDestroyFailure }),
      }),
      files: createFileStore({ ...recordOptions, dataDir: settings.dataDir, cipher: keys.cipher }),
      subjects: createSubjectStore({ database, codec, readAudit, ...consultationLog }),
      clock,
      keys,
      changes,
      migrated: applied,
      get keyring() {
        return keys.keyring()
      },
      accounts,
      factors: createSecondFactorStore({
        database,
        cipher: keys.cipher,
        beforeWrite: keys.beforeWrite,
        changes,
        accountsModule: spec.accounts.spec.name,
        clock,
        timezone,
      }),
      accountRules: createAccountRules(spec, lazyCommonPasswords()),
      unwrittenReads: () => readAudit.unwritten(),
      readAuditStatus: () => readAudit.status(),
      async close() {
        try {
          await readAudit.close()
        } finally {
          await database.close()
        }
      },
    }
  } catch (error) {
    await database.close()
    throw error
  }
}
