// Login, logout and the current user (API reference 4.1-4.3, D19, D20): the handlers of the
// session contracts (contracts/session.ts), which declare their paths, bodies and answers.
import bcrypt from 'bcryptjs'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AccountsSpec } from '../../compile/types.js'
import type { Account, AccountStore } from '../../db/accounts/store.js'
import type { SecondFactorStore } from '../../db/accounts/second-factors.js'
import type { RecordStore } from '../../db/records/types.js'
import {
  badCredentials,
  badJson,
  loginDelayed,
  requiredMissing,
  secondFactorInvalid,
  secondFactorRequired,
  validationFailed,
} from '../../errors.js'
import { canonicalUsername, type AccountRules } from '../../records/account-rules.js'
import { PASSWORD_MAX_BYTES, passwordBytes } from '../../records/password-policy.js'
import type { ContractFamily } from '../../contracts/route-contract.js'
import {
  LOGIN_BODY,
  LOGIN_CODE,
  PASSWORD_CHANGE_BODY,
  PASSWORD_CHANGE_FIELDS,
  type SessionRoute,
} from '../../contracts/session.js'
import { serveAuthenticated, serveRoute } from '../contract-route.js'
import { LOGIN_FAILED, type Failure, type FailedLogins } from '../failed-logins.js'
import type { LoginThrottle } from '../login-throttle.js'
import { clientAddress } from '../rate-limit.js'

/** The login body's optional `codigo` (D42); 400 when it is there and not a text. */
function codeOf(body: unknown): string | undefined {
  const code = (body as Record<string, unknown>)[LOGIN_CODE]
  if (code === undefined) return undefined
  if (typeof code !== 'string' || code === '')
    throw validationFailed([{ field: LOGIN_CODE, message: `El campo '${LOGIN_CODE}' debe ser un texto no vacío` }])
  return code
}

/** The answer of a login: the token and the account's profile (API reference 4.1; a passkey sign-in too, D42). */
export function signedIn(account: Account, token: string) {
  const { _id: id, _created: _ignored, ...profile } = account.profile
  return { success: true, data: { token, user: { id, ...profile } } }
}

export interface SessionRoutesOptions {
  readonly contracts: ContractFamily<SessionRoute>
  readonly accounts: AccountStore
  readonly store: RecordStore
  readonly accountsSpec: AccountsSpec
  readonly rules: AccountRules
  readonly clock: () => Date
  readonly throttle: LoginThrottle
  /** Failed logins counted and audited (shared with the second-factor routes, D42). */
  readonly failures: FailedLogins
  readonly factors: SecondFactorStore
}

// Compared against when the username is unknown, so both answers take as long (D19).
// A constant (bcrypt of 'municipal-records: no such user'), not hashed at import: that
// cost ~70 ms of every start. Its cost factor is the one passwords get
// (BCRYPT_ROUNDS, checked by test/unit/http/dummy-hash.test.ts).
export const DUMMY_HASH = '$2b$10$QIJpzpz5j.swFo68hnaTAOXXal2z4XLFdVpNHiZtqVniodk1FVhiy'

/** What readStrings reads of a body's schema: its required keys, and whether others are refused. */
interface StringsBody<K extends string> {
  readonly required: readonly K[]
  readonly additionalProperties?: boolean
}

/**
 * The required string fields of a JSON object body, by its contract's schema; 400 when one is
 * missing or empty, and with `additionalProperties: false` when another comes with them (D7).
 */
function readStrings<K extends string>(body: unknown, schema: StringsBody<K>): Record<K, string> {
  const keys = schema.required
  const strict = schema.additionalProperties === false
  // No body at all is missing data; a JSON value that is not an object is bad JSON (D7).
  if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body))) throw badJson()
  const b = (body ?? {}) as Record<string, unknown>
  const missing = keys.filter((k) => typeof b[k] !== 'string' || b[k] === '')
  if (missing.length > 0)
    throw requiredMissing(missing.map((field) => ({ field, message: `El campo '${field}' es obligatorio` })))
  const unknown = strict ? Object.keys(b).filter((k) => !(keys as readonly string[]).includes(k)) : []
  if (unknown.length > 0)
    throw validationFailed(unknown.map((field) => ({ field, message: `Campo desconocido '${field}'` })))
  return Object.fromEntries(keys.map((k) => [k, b[k]])) as Record<K, string>
}

export async function sessionRoutes(app: FastifyInstance, options: SessionRoutesOptions): Promise<void> {
  const { accounts, store, throttle, failures } = options
  const { routes } = options.contracts
  /**
   * D42: an account with a confirmed factor gives `codigo` too. Without it, 401 naming the
   * methods (the password was right: nothing is counted); a wrong, expired or replayed code
   * counts as a failed login (D19) exactly as a wrong password does.
   */
  async function secondStep(request: FastifyRequest, username: string, id: string, code: string | undefined) {
    const metodos = await options.factors.methods(id)
    if (metodos.length === 0) return
    if (code === undefined) throw secondFactorRequired(metodos)
    const by = { userId: id, address: clientAddress(request), requestId: request.id }
    if ((await options.factors.verify(id, code, by)) !== undefined) return
    await failures.count(request, username, id, LOGIN_FAILED)
    throw secondFactorInvalid(metodos)
  }

  serveRoute(app, routes.login, async (request) => {
    const login = readStrings(request.body, LOGIN_BODY)
    // Any spelling of the username finds its account (F8).
    const username = canonicalUsername(login.username)
    const password = login.password
    const waitMs = await throttle.waitMs(username, clientAddress(request))
    if (waitMs > 0) {
      await failures.failed(null, LOGIN_FAILED, request) // no lookup: the answer is the same for every username
      throw loginDelayed(Math.ceil(waitMs / 1000))
    }
    const found = await accounts.credentials(username)
    // bcrypt reads 72 bytes: a longer password would match one that shares its first 72 bytes.
    const tooLong = passwordBytes(password) > PASSWORD_MAX_BYTES
    const matches = (await bcrypt.compare(password, found?.passwordHash ?? DUMMY_HASH)) && !tooLong
    const account = found !== undefined && matches && found.active ? await accounts.activeAccount(found.id) : undefined
    if (account === undefined) {
      await failures.count(request, username, found?.id ?? null, LOGIN_FAILED)
      throw badCredentials()
    }
    await secondStep(request, username, account.id, codeOf(request.body))
    await throttle.succeeded(username, clientAddress(request))
    const token = await app.issueToken(account)
    await failures.audit(account.id, 'login', account.id)
    return signedIn(account, token)
  })

  serveAuthenticated(app, routes.logout, async (_request, _reply, auth) => {
    const now = Math.floor(options.clock().getTime() / 1000)
    await accounts.revoke(auth.claims.jti, auth.claims.exp, now)
    await failures.audit(auth.account.id, 'logout', auth.account.id)
    return { success: true, data: { message: 'Sesión cerrada' } }
  })

  serveAuthenticated(app, routes.me, async (_request, _reply, auth) => {
    return { success: true, data: auth.account.profile }
  })

  // Every user changes their own password; every token issued before, this one included, ends
  // on every instance, and the answer carries a fresh token. A wrong current
  // password counts as a failed login of the account from the request's address, with the same
  // waits, and is audited (F6): a stolen token is no oracle for guessing the password.
  serveAuthenticated(app, routes.changePassword, async (request, _reply, auth) => {
    const { current, next } = PASSWORD_CHANGE_FIELDS
    const body = readStrings(request.body, PASSWORD_CHANGE_BODY)
    const id = auth.account.id
    const { spec, username: usernameField, password } = options.accountsSpec
    const record = await store.get(spec, id, { reveal: false, actor: id, user: null })
    const username = canonicalUsername(String(record[usernameField] ?? ''))
    const failure: Failure = { action: 'password_fallido', actor: id }
    const waitMs = await throttle.waitMs(username, clientAddress(request))
    if (waitMs > 0) {
      await failures.failed(id, failure, request) // refused unchecked: no bcrypt compare while waiting
      throw loginDelayed(Math.ceil(waitMs / 1000), current)
    }
    const hash = (await accounts.passwordHash(id)) ?? DUMMY_HASH
    const currentOk = passwordBytes(body[current]) <= PASSWORD_MAX_BYTES && (await bcrypt.compare(body[current], hash))
    if (!currentOk) {
      await failures.count(request, username, id, failure)
      throw validationFailed([{ field: current, message: 'La contraseña actual no es correcta' }])
    }
    await throttle.succeeded(username, clientAddress(request))
    options.rules.checkPassword(body[next], { username, role: auth.account.role }, next)
    if (await bcrypt.compare(body[next], hash))
      throw validationFailed([{ field: next, message: 'La contraseña nueva debe ser distinta de la actual' }])
    await store.update(spec, id, { [password]: body[next] }, { actor: id, reveal: false, user: null })
    const account = await accounts.activeAccount(id)
    if (account === undefined) throw badCredentials()
    return { success: true, data: { message: 'Contraseña cambiada', token: await app.issueToken(account) } }
  })
}
