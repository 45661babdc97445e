// Login, logout and the current user (API reference 4.1-4.3, D19, D20): the handlers of the
// session contracts (contracts/session.ts), which declare their paths, bodies and answers.
import bcrypt from 'bcryptjs'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AccountsSpec } from '../../compile/types.js'
import type { AccountStore } from '../../db/accounts/store.js'
import type { AuditAction } from '../../db/audit/log.js'
import type { RecordStore } from '../../db/records/types.js'
import { badCredentials, badJson, loginDelayed, requiredMissing, validationFailed } from '../../errors.js'
import { canonicalUsername, type AccountRules } from '../../records/account-rules.js'
import { PASSWORD_MAX_BYTES, passwordBytes } from '../../records/password-policy.js'
import type { ContractFamily } from '../../contracts/route-contract.js'
import { LOGIN_BODY, PASSWORD_CHANGE_BODY, PASSWORD_CHANGE_FIELDS, type SessionRoute } from '../../contracts/session.js'
import { serveAuthenticated, serveRoute } from '../contract-route.js'
import type { LoginThrottle } from '../login-throttle.js'
import { clientAddress } from '../rate-limit.js'

export interface SessionRoutesOptions {
  readonly contracts: ContractFamily<SessionRoute>
  readonly accounts: AccountStore
  readonly store: RecordStore
  readonly accountsModule: string
  readonly accountsSpec: AccountsSpec
  readonly rules: AccountRules
  readonly clock: () => Date
  readonly throttle: LoginThrottle
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
  const { accounts, store, accountsModule, throttle } = options
  const { routes } = options.contracts
  /** A failure of a login (no actor) or of a current password (the token's account, F6). */
  type Failure = { readonly action: 'login_fallido' | 'password_fallido'; readonly actor: string | null }
  // An entry with an actor names where the request came from: the token was used from there.
  const audit = (recordId: string | null, action: AuditAction, actor: string | null, request?: FastifyRequest) =>
    store.audit([
      {
        userId: actor,
        action,
        module: accountsModule,
        recordId,
        version: null,
        recordHash: null,
        fields: [],
        ...(request === undefined ? {} : { address: clientAddress(request), requestId: request.id }),
      },
    ])
  const failed = (recordId: string | null, f: Failure, request: FastifyRequest) =>
    audit(recordId, f.action, f.actor, f.actor === null ? undefined : request)
  /** One more failure of `username` from the request's address, audited; an alert at the ceiling. */
  const countFailure = async (request: FastifyRequest, username: string, recordId: string | null, f: Failure) => {
    const { alert, usernameFailures } = await throttle.failed(username, clientAddress(request))
    await failed(recordId, f, request)
    if (!alert) return
    // Many addresses failing for one username: an operator must look.
    const message = `Posible ataque: ${usernameFailures} inicios de sesión fallidos con el usuario '${username}'`
    request.log.error({ username, failures: usernameFailures, event: 'login_alerta' }, message)
    await audit(recordId, 'login_alerta', null)
  }
  const LOGIN_FAILED: Failure = { action: 'login_fallido', actor: null }

  serveRoute(app, routes.login, async (request) => {
    const login = readStrings(request.body, LOGIN_BODY)
    // Any spelling of the username finds its account (F8).
    const username = canonicalUsername(login.username)
    const password = login.password
    const waitMs = await throttle.waitMs(username, clientAddress(request))
    if (waitMs > 0) {
      await failed(null, LOGIN_FAILED, request) // no lookup: the answer is the same for every username
      throw loginDelayed(Math.ceil(waitMs / 1000))
    }
    const found = await accounts.credentials(username)
    // bcrypt reads 72 bytes: a longer password would match one that shares its first 72 bytes.
    const tooLong = passwordBytes(password) > PASSWORD_MAX_BYTES
    const matches = (await bcrypt.compare(password, found?.passwordHash ?? DUMMY_HASH)) && !tooLong
    const account = found !== undefined && matches && found.active ? await accounts.activeAccount(found.id) : undefined
    if (account === undefined) {
      await countFailure(request, username, found?.id ?? null, LOGIN_FAILED)
      throw badCredentials()
    }
    await throttle.succeeded(username, clientAddress(request))
    const token = await app.issueToken(account)
    await audit(account.id, 'login', account.id)
    const { _id: id, _created: _ignored, ...profile } = account.profile
    return { success: true, data: { token, user: { id, ...profile } } }
  })

  serveAuthenticated(app, routes.logout, async (_request, _reply, auth) => {
    const now = Math.floor(options.clock().getTime() / 1000)
    await accounts.revoke(auth.claims.jti, auth.claims.exp, now)
    await store.audit([
      {
        userId: auth.account.id,
        action: 'logout',
        module: accountsModule,
        recordId: auth.account.id,
        version: null,
        recordHash: null,
        fields: [],
      },
    ])
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
      await failed(id, failure, request) // refused unchecked: no bcrypt compare while waiting
      throw loginDelayed(Math.ceil(waitMs / 1000), current)
    }
    const hash = (await accounts.passwordHash(id)) ?? DUMMY_HASH
    const currentOk = passwordBytes(body[current]) <= PASSWORD_MAX_BYTES && (await bcrypt.compare(body[current], hash))
    if (!currentOk) {
      await countFailure(request, username, id, failure)
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
