// Each account's second factors (D42): TOTP secrets encrypted at rest like any encrypted field
// (D14, bound to their row), recovery codes kept only as hashes, each change audited in the
// same transaction as the change itself. A TOTP code is accepted once: the step last used is
// kept and a code of that step or an earlier one is refused (a replay). A passkey (WebAuthn) is a
// row of its own kind: its id is the credential's id, its public key and transports are kept
// under the same encryption as a TOTP secret (so key rotation treats both alike), and
// `last_counter` is the authenticator's signature counter.
import { randomUUID } from 'node:crypto'
import { formatExactTimestamp } from '../../compile/time.js'
import { busy } from '../../errors.js'
import { appendAudit, type AuditAction } from '../audit/log.js'
import type { ChangeWatch } from '../change-watch.js'
import type { FieldCipher } from '../crypto.js'
import type { Database, Db } from '../database.js'
import { SYSTEM_TABLES } from '../system-tables.js'
import { endSessions } from './store.js'
import { looksLikeTotp, newRecoveryCodes, newTotpSecret, recoveryCodeHash, totpStep, totpUri } from './totp.js'

/** How a login may prove the second factor, as `details[].metodos` names them. */
export type FactorMethod = 'totp' | 'passkey' | 'recuperacion'

/** What a factor is: a TOTP authenticator or a passkey. */
export type FactorKind = 'totp' | 'passkey'

export interface FactorSummary {
  readonly id: string
  readonly tipo: FactorKind
  readonly creado: string
  readonly confirmado_en: string
}

/** Who asks, from where: what the audit entry of a change names. */
export interface FactorActor {
  /** The account acting (the owner, an administrator) or a command-line actor; null: none. */
  readonly userId: string | null
  readonly address?: string | null
  readonly requestId?: string | null
}

export type ConfirmOutcome =
  | { readonly ok: true; readonly recoveryCodes: readonly string[] }
  | { readonly ok: false; readonly reason: 'no_pending' | 'invalid' }

/** A passkey as the WebAuthn ceremonies need it: its id (base64url), public key and counter. */
export interface StoredPasskey {
  readonly id: string
  readonly accountId: string
  readonly publicKey: Uint8Array
  readonly counter: number
  readonly transports: readonly string[]
}

export type PasskeyInput = Omit<StoredPasskey, 'accountId'>

export interface SecondFactorStore {
  /** The methods a login of `accountId` may use; empty: no confirmed factor, no second step. */
  methods(accountId: string): Promise<readonly FactorMethod[]>
  list(accountId: string): Promise<{ factores: FactorSummary[]; recuperacion_restantes: number }>
  /** A new TOTP enrolment, pending until confirmed (replaces a pending one); undefined: one is confirmed. */
  startTotp(accountId: string, label: string): Promise<{ secreto: string; uri: string } | undefined>
  /** Confirms the pending TOTP with a current code; new recovery codes replace any earlier ones. */
  confirmTotp(accountId: string, code: string, by: FactorActor): Promise<ConfirmOutcome>
  /** Keeps a verified passkey; the 10 recovery codes when it is the account's first factor, else none. */
  addPasskey(
    accountId: string,
    passkey: PasskeyInput,
    by: FactorActor,
  ): Promise<{ readonly recoveryCodes: readonly string[] | undefined } | undefined>
  /** The passkeys of `accountId` (to exclude them from a new enrolment). */
  passkeys(accountId: string): Promise<StoredPasskey[]>
  /** The passkey with this credential id, whoever's. */
  findPasskey(credentialId: string): Promise<StoredPasskey | undefined>
  /**
   * Records a sign-in's signature counter: false when the counter did not grow although the
   * authenticator keeps one (a cloned authenticator), or when another sign-in moved it meanwhile.
   */
  usePasskey(passkey: StoredPasskey, newCounter: number): Promise<boolean>
  /** Spends `code` (a TOTP code once, a recovery code for good); which method it was, or undefined. */
  verify(accountId: string, code: string, by: FactorActor): Promise<FactorMethod | undefined>
  /** Removes a confirmed factor of `accountId` (the last one takes the recovery codes); false if none. */
  remove(accountId: string, factorId: string, by: FactorActor): Promise<boolean>
  /** Removes every factor and recovery code of `accountId` and ends their tokens; how many factors. */
  reset(accountId: string, by: FactorActor): Promise<number>
  /** Key rotation: every secret not under the active key re-encrypted under it; how many. */
  reencryptSecrets(): Promise<number>
}

export interface SecondFactorStoreOptions {
  readonly database: Database
  readonly cipher: FieldCipher
  /** Binds a write to the database's active key (live-keys.ts). */
  readonly beforeWrite: (trx: Db) => Promise<void>
  readonly changes: ChangeWatch
  /** The accounts module: the audit entries name it, its generation drops cached accounts. */
  readonly accountsModule: string
  readonly clock: () => Date
  readonly timezone: string
}

const FACTORS = SYSTEM_TABLES.secondFactors
const CODES = SYSTEM_TABLES.recoveryCodes
/** Encryption is bound to the factor's row: a secret copied to another row fails its tag. */
export const factorSecretContext = (id: string): string => `${FACTORS}:${id}`

export function createSecondFactorStore(options: SecondFactorStoreOptions): SecondFactorStore {
  const { database, cipher } = options
  const { db } = database
  const confirmed = (q: Db, accountId: string) =>
    q.selectFrom(FACTORS).where('account_id', '=', accountId).where('confirmed_at', 'is not', null)
  const confirmedOf = (q: Db, accountId: string, kind: FactorKind) => confirmed(q, accountId).where('kind', '=', kind)
  const passkeyOf = (row: Record<string, unknown>): StoredPasskey => {
    const id = String(row['id'])
    const kept = JSON.parse(cipher.decrypt(String(row['secret']), factorSecretContext(id))) as {
      publicKey: string
      transports: string[]
    }
    return {
      id,
      accountId: String(row['account_id']),
      publicKey: new Uint8Array(Buffer.from(kept.publicKey, 'base64url')),
      counter: Number(row['last_counter'] ?? 0),
      transports: kept.transports,
    }
  }
  const PASSKEY_COLUMNS = ['id', 'account_id', 'secret', 'last_counter'] as const
  const unusedCodes = (q: Db, accountId: string) =>
    q.selectFrom(CODES).where('account_id', '=', accountId).where('used_at', 'is', null)

  /** `work` in one transaction that also appends the audit entry it returns (if any). */
  async function write<T>(work: (trx: Db, at: string) => Promise<{ result: T; audit?: Audit }>): Promise<T> {
    const at = formatExactTimestamp(options.clock(), options.timezone)
    try {
      return await db.transaction().execute(async (trx) => {
        const { result, audit } = await work(trx, at)
        if (audit !== undefined) {
          const { action, accountId, by } = audit
          const event = {
            userId: by.userId,
            action,
            module: options.accountsModule,
            recordId: accountId,
            version: null,
            recordHash: null,
            fields: [],
            address: by.address ?? null,
            requestId: by.requestId ?? null,
          }
          await appendAudit({ database, trx, events: [event], at })
          // Cached accounts carry whether a factor is enrolled (D42) and their session version.
          await options.changes.bump(trx, options.accountsModule)
        }
        return result
      })
    } catch (error) {
      if (database.isBusy(error)) throw busy(error)
      throw error
    }
  }

  /** Whether a confirmed TOTP factor accepts `code` at a step later than its last: that step is then spent. */
  async function spendTotp(trx: Db, accountId: string, code: string): Promise<boolean> {
    const rows = await confirmedOf(trx, accountId, 'totp')
      .select(['id', 'secret', 'last_counter'])
      .$if(database.rowLocks, (q) => q.forUpdate())
      .execute()
    for (const row of rows) {
      const id = String(row['id'])
      const step = totpStep(cipher.decrypt(String(row['secret']), factorSecretContext(id)), code, options.clock())
      const last = row['last_counter'] === null ? -1 : Number(row['last_counter'])
      if (step === undefined || step <= last) continue
      await trx.updateTable(FACTORS).set({ last_counter: step }).where('id', '=', id).execute()
      return true
    }
    return false
  }

  /** Ten new recovery codes for `accountId`, replacing any earlier ones; the codes, shown once. */
  async function replaceRecoveryCodes(trx: Db, accountId: string): Promise<string[]> {
    const recoveryCodes = newRecoveryCodes()
    await trx.deleteFrom(CODES).where('account_id', '=', accountId).execute()
    await trx
      .insertInto(CODES)
      .values(recoveryCodes.map((c) => ({ account_id: accountId, code_hash: recoveryCodeHash(accountId, c) })))
      .execute()
    return recoveryCodes
  }

  async function spendRecovery(trx: Db, accountId: string, code: string, at: string): Promise<boolean> {
    const result = await trx
      .updateTable(CODES)
      .set({ used_at: at })
      .where('account_id', '=', accountId)
      .where('code_hash', '=', recoveryCodeHash(accountId, code))
      .where('used_at', 'is', null)
      .executeTakeFirst()
    return Number(result.numUpdatedRows) === 1
  }

  return {
    async methods(accountId) {
      const kinds = await confirmed(db, accountId).select('kind').distinct().execute()
      if (kinds.length === 0) return []
      const code = await unusedCodes(db, accountId).select('code_hash').executeTakeFirst()
      const has = (kind: FactorKind) => kinds.some((k) => k['kind'] === kind)
      return [
        ...(has('passkey') ? (['passkey'] as const) : []),
        ...(has('totp') ? (['totp'] as const) : []),
        ...(code === undefined ? [] : (['recuperacion'] as const)),
      ]
    },
    async list(accountId) {
      const rows = await confirmed(db, accountId)
        .select(['id', 'kind', 'created_at', 'confirmed_at'])
        .orderBy('confirmed_at')
        .execute()
      const codes = await unusedCodes(db, accountId)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirst()
      return {
        factores: rows.map((r) => ({
          id: String(r['id']),
          tipo: String(r['kind']) as FactorKind,
          creado: String(r['created_at']),
          confirmado_en: String(r['confirmed_at']),
        })),
        recuperacion_restantes: Number(codes?.['n'] ?? 0),
      }
    },
    async startTotp(accountId, label) {
      return write(async (trx, at) => {
        if ((await confirmedOf(trx, accountId, 'totp').select('id').executeTakeFirst()) !== undefined)
          return { result: undefined }
        await options.beforeWrite(trx)
        await trx.deleteFrom(FACTORS).where('account_id', '=', accountId).where('confirmed_at', 'is', null).execute()
        const id = randomUUID()
        const secreto = newTotpSecret()
        const secret = cipher.encrypt(secreto, factorSecretContext(id))
        await trx
          .insertInto(FACTORS)
          .values({ id, account_id: accountId, kind: 'totp', secret, created_at: at })
          .execute()
        return { result: { secreto, uri: totpUri(secreto, label) } }
      })
    },
    async confirmTotp(accountId, code, by) {
      return write<ConfirmOutcome>(async (trx, at) => {
        const pending = await trx
          .selectFrom(FACTORS)
          .select(['id', 'secret'])
          .where('account_id', '=', accountId)
          .where('kind', '=', 'totp')
          .where('confirmed_at', 'is', null)
          .$if(database.rowLocks, (q) => q.forUpdate())
          .executeTakeFirst()
        if (pending === undefined) return { result: { ok: false, reason: 'no_pending' } }
        const id = String(pending['id'])
        const secret = cipher.decrypt(String(pending['secret']), factorSecretContext(id))
        const step = looksLikeTotp(code) ? totpStep(secret, code, options.clock()) : undefined
        if (step === undefined) return { result: { ok: false, reason: 'invalid' } }
        await trx.updateTable(FACTORS).set({ confirmed_at: at, last_counter: step }).where('id', '=', id).execute()
        const recoveryCodes = await replaceRecoveryCodes(trx, accountId)
        return { result: { ok: true, recoveryCodes }, audit: { action: 'segundo_factor_alta', accountId, by } }
      })
    },
    async addPasskey(accountId, passkey, by) {
      return write(async (trx, at) => {
        if ((await trx.selectFrom(FACTORS).select('id').where('id', '=', passkey.id).executeTakeFirst()) !== undefined)
          return { result: undefined }
        await options.beforeWrite(trx)
        const first = (await confirmed(trx, accountId).select('id').executeTakeFirst()) === undefined
        const kept = JSON.stringify({
          publicKey: Buffer.from(passkey.publicKey).toString('base64url'),
          transports: passkey.transports,
        })
        await trx
          .insertInto(FACTORS)
          .values({
            id: passkey.id,
            account_id: accountId,
            kind: 'passkey',
            secret: cipher.encrypt(kept, factorSecretContext(passkey.id)),
            created_at: at,
            confirmed_at: at,
            last_counter: passkey.counter,
          })
          .execute()
        const recoveryCodes = first ? await replaceRecoveryCodes(trx, accountId) : undefined
        return { result: { recoveryCodes }, audit: { action: 'segundo_factor_alta', accountId, by } }
      })
    },
    async passkeys(accountId) {
      const rows = await confirmedOf(db, accountId, 'passkey').select(PASSKEY_COLUMNS).execute()
      return rows.map(passkeyOf)
    },
    async findPasskey(credentialId) {
      const row = await db
        .selectFrom(FACTORS)
        .select(PASSKEY_COLUMNS)
        .where('id', '=', credentialId)
        .where('kind', '=', 'passkey')
        .executeTakeFirst()
      return row === undefined ? undefined : passkeyOf(row)
    },
    async usePasskey(passkey, newCounter) {
      // Authenticators that keep no counter always say 0; one that keeps it must go up (WebAuthn 6.1.1).
      if ((newCounter !== 0 || passkey.counter !== 0) && newCounter <= passkey.counter) return false
      const result = await db
        .updateTable(FACTORS)
        .set({ last_counter: newCounter })
        .where('id', '=', passkey.id)
        .where('last_counter', '=', passkey.counter)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) === 1
    },
    async verify(accountId, code, by) {
      return write<FactorMethod | undefined>(async (trx, at) => {
        if (looksLikeTotp(code)) return { result: (await spendTotp(trx, accountId, code)) ? 'totp' : undefined }
        if (!(await spendRecovery(trx, accountId, code, at))) return { result: undefined }
        return { result: 'recuperacion', audit: { action: 'recuperacion_usada', accountId, by } }
      })
    },
    async remove(accountId, factorId, by) {
      return write(async (trx) => {
        const removed = await trx
          .deleteFrom(FACTORS)
          .where('id', '=', factorId)
          .where('account_id', '=', accountId)
          .where('confirmed_at', 'is not', null)
          .executeTakeFirst()
        if (Number(removed.numDeletedRows) === 0) return { result: false }
        // Recovery codes stand in for a factor: with none left they would be a password of their own.
        if ((await confirmed(trx, accountId).select('id').executeTakeFirst()) === undefined)
          await trx.deleteFrom(CODES).where('account_id', '=', accountId).execute()
        return { result: true, audit: { action: 'segundo_factor_baja', accountId, by } }
      })
    },
    async reencryptSecrets() {
      return db.transaction().execute(async (trx) => {
        await options.beforeWrite(trx)
        const active = cipher.activeKeyId
        const rows = await trx
          .selectFrom(FACTORS)
          .select(['id', 'secret'])
          .where('secret', 'not like', `v1.${active}.%`)
          .$if(database.rowLocks, (q) => q.forUpdate())
          .execute()
        for (const row of rows) {
          const context = factorSecretContext(String(row['id']))
          const secret = cipher.encrypt(cipher.decrypt(String(row['secret']), context), context)
          await trx.updateTable(FACTORS).set({ secret }).where('id', '=', String(row['id'])).execute()
        }
        return rows.length
      })
    },
    async reset(accountId, by) {
      return write(async (trx) => {
        const removed = await trx.deleteFrom(FACTORS).where('account_id', '=', accountId).executeTakeFirst()
        await trx.deleteFrom(CODES).where('account_id', '=', accountId).execute()
        await endSessions(trx, accountId)
        const count = Number(removed.numDeletedRows)
        return { result: count, audit: { action: 'segundo_factor_reset', accountId, by } }
      })
    },
  }
}

interface Audit {
  readonly action: AuditAction
  readonly accountId: string
  readonly by: FactorActor
}
