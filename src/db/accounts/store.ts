// What login and every authenticated request need to know about accounts and tokens.
import { sql } from 'kysely'
import { META } from '../../compile/metadata.js'
import type { AccountsSpec, ModuleSpec } from '../../compile/types.js'
import { canonicalUsername } from '../../records/account-rules.js'
import { generationCache, type ChangeWatch } from '../change-watch.js'
import type { Database, Db, Row } from '../database.js'
import { VALUE_CONVERSIONS } from '../dialects/values.js'
import { SYSTEM_TABLES } from '../system-tables.js'

export interface Credentials {
  readonly id: string
  readonly passwordHash: string
  readonly active: boolean
}

export interface Account {
  readonly id: string
  readonly role: string
  /**
   * Starts at 0 and grows with every password change, disable or re-enable: a token carries
   * the value it was issued under and is refused once it differs.
   */
  readonly sessionVersion: number
  /** `_id`, the profile fields of modules.yaml and `_created` (API reference 2.9). */
  readonly profile: Readonly<Record<string, unknown>>
  /** The account fields access rules name as `$user.<field>`. */
  readonly fields: Readonly<Record<string, unknown>>
  /** A confirmed second factor is enrolled (D42): a role that requires one reaches all it may. */
  readonly secondFactor: boolean
  /** A passkey among them: what a role with `segundo_factor: passkey` requires (D42). */
  readonly passkey: boolean
}

export interface AccountStore {
  /** A live account by username (any spelling of it), with its password hash, for login only. */
  credentials(username: string): Promise<Credentials | undefined>
  /** The stored bcrypt hash of a live account's password (POST /me/password). */
  passwordHash(id: string): Promise<string | undefined>
  /** A live, active account: undefined when deleted or disabled (D20). */
  activeAccount(id: string): Promise<Account | undefined>
  count(): Promise<number>
  isRevoked(jti: string): Promise<boolean>
  /** Durable revocation (D20): survives restarts, seen by every instance on the database. */
  revoke(jti: string, expiresAtSeconds: number, nowSeconds: number): Promise<void>
}

/** Key of the revocations' generation in the change watch. */
export const REVOCATIONS = '_revoked'
export function createAccountStore(database: Database, accounts: AccountsSpec, changes: ChangeWatch): AccountStore {
  const { db } = database
  const accountCache = generationCache<Account | undefined>(changes, accounts.spec.name)
  const revokedCache = generationCache<boolean>(changes, REVOCATIONS)
  const table = accounts.spec.table.name
  const toBool = VALUE_CONVERSIONS[database.dialect].boolean.fromDb
  const isActive = (row: Row) =>
    row[accounts.active] === null || row[accounts.active] === undefined || toBool(row[accounts.active]) === true
  const live = () => db.selectFrom(table).where(META.deleted, 'is', null)

  return {
    async credentials(username) {
      const row = await live()
        .select([META.id, accounts.password, accounts.active])
        .where(accounts.username, '=', canonicalUsername(username))
        .executeTakeFirst()
      if (row === undefined) return undefined
      return { id: String(row[META.id]), passwordHash: String(row[accounts.password] ?? ''), active: isActive(row) }
    },
    async passwordHash(id) {
      const row = await live().select(accounts.password).where(META.id, '=', id).executeTakeFirst()
      return row === undefined ? undefined : String(row[accounts.password] ?? '')
    },
    async activeAccount(id) {
      return accountCache(id, () => loadAccount(id))
    },
    async count() {
      const row = await live()
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirst()
      return Number(row?.['n'] ?? 0)
    },
    async isRevoked(jti) {
      return revokedCache(jti, () => loadRevoked(jti))
    },
    async revoke(jti, expiresAtSeconds, nowSeconds) {
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto(SYSTEM_TABLES.revokedTokens)
          .values({ jti, expires_at: expiresAtSeconds })
          .onConflict((oc) => oc.column('jti').doNothing())
          .execute()
        // Expired tokens are rejected by their signature check already: forget them.
        await trx.deleteFrom(SYSTEM_TABLES.revokedTokens).where('expires_at', '<', nowSeconds).execute()
        await changes.bump(trx, REVOCATIONS)
      })
    },
  }

  async function loadAccount(id: string): Promise<Account | undefined> {
    const columns = [
      ...new Set([META.id, META.created, accounts.role, accounts.active, ...accounts.profile, ...accounts.userFields]),
    ]
    const row = await live().select(columns).where(META.id, '=', id).executeTakeFirst()
    if (row === undefined || !isActive(row)) return undefined
    const session = await db
      .selectFrom(SYSTEM_TABLES.accountSessions)
      .select('version')
      .where('account_id', '=', id)
      .executeTakeFirst()
    const kinds = await db
      .selectFrom(SYSTEM_TABLES.secondFactors)
      .select('kind')
      .distinct()
      .where('account_id', '=', id)
      .where('confirmed_at', 'is not', null)
      .execute()
    return {
      id,
      role: String(row[accounts.role]),
      sessionVersion: Number(session?.['version'] ?? 0),
      profile: {
        [META.id]: id,
        ...Object.fromEntries(accounts.profile.map((f) => [f, row[f] ?? null])),
        [META.created]: row[META.created],
      },
      fields: Object.fromEntries(accounts.userFields.map((f) => [f, row[f] ?? null])),
      secondFactor: kinds.length > 0,
      passkey: kinds.some((k) => k['kind'] === 'passkey'),
    }
  }

  async function loadRevoked(jti: string): Promise<boolean> {
    const row = await db.selectFrom(SYSTEM_TABLES.revokedTokens).select('jti').where('jti', '=', jti).executeTakeFirst()
    return row !== undefined
  }
}

/**
 * Called inside every update of a record (RecordStoreOptions.afterUpdate): a new password or a
 * change of the active flag of an account ends every token issued before it, on every instance
 * (the accounts module's generation moves in the same transaction, so every cache drops it).
 */
export function endSessionsOnCredentialChange(database: Database, accounts: AccountsSpec) {
  const toBool = VALUE_CONVERSIONS[database.dialect].boolean.fromDb
  return async (trx: Db, spec: ModuleSpec, id: string, changes: Row, before: Row): Promise<void> => {
    if (spec !== accounts.spec) return
    const wasActive =
      before[accounts.active] === null ||
      before[accounts.active] === undefined ||
      toBool(before[accounts.active]) === true
    const activeChanged = typeof changes[accounts.active] === 'boolean' && changes[accounts.active] !== wasActive
    if (typeof changes[accounts.password] !== 'string' && !activeChanged) return
    await endSessions(trx, id)
  }
}

/**
 * Inside a write transaction: every token `id` holds stops working (its session version moves).
 * The caller bumps the accounts module's generation, or its write does, so every instance sees it.
 */
export async function endSessions(trx: Db, id: string): Promise<void> {
  await trx
    .insertInto(SYSTEM_TABLES.accountSessions)
    .values({ account_id: id, version: 1 })
    .onConflict((oc) =>
      oc.column('account_id').doUpdateSet({ version: sql`${sql.ref(`${SYSTEM_TABLES.accountSessions}.version`)} + 1` }),
    )
    .execute()
}
