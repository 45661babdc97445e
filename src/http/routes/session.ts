// Login, logout and the current user (spec 4.1-4.3, D19, D20).
import bcrypt from 'bcryptjs'
import type { FastifyInstance } from 'fastify'
import type { AccountStore } from '../../db/account-store.js'
import type { RecordStore } from '../../db/record-store.js'
import { badCredentials, badJson, loginDelayed, requiredMissing } from '../../errors.js'
import type { LoginThrottle } from '../login-throttle.js'
import { clientAddress } from '../rate-limit.js'

export interface SessionRoutesOptions {
  readonly accounts: AccountStore
  readonly store: RecordStore
  readonly accountsModule: string
  readonly clock: () => Date
  readonly throttle: LoginThrottle
}

// Compared against when the username is unknown, so both answers take as long (D19).
// A constant (bcrypt of 'municipal-records: no such user'), not hashed at import: that
// cost ~70 ms of every start (issue #7). Its cost factor is the one passwords get
// (BCRYPT_ROUNDS, checked by test/unit/http/dummy-hash.test.ts).
export const DUMMY_HASH = '$2b$10$QIJpzpz5j.swFo68hnaTAOXXal2z4XLFdVpNHiZtqVniodk1FVhiy'

function readLogin(body: unknown): { username: string; password: string } {
  // No body at all is missing data; a JSON value that is not an object is bad JSON (D7).
  if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body))) throw badJson()
  const b = (body ?? {}) as Record<string, unknown>
  const missing = ['username', 'password'].filter((k) => typeof b[k] !== 'string' || b[k] === '')
  if (missing.length > 0) throw requiredMissing(missing.map((field) => ({ field, message: `El campo '${field}' es obligatorio` })))
  return { username: b['username'] as string, password: b['password'] as string }
}

export async function sessionRoutes(app: FastifyInstance, options: SessionRoutesOptions): Promise<void> {
  const { accounts, store, accountsModule, throttle } = options

  app.post('/auth/login', async (request) => {
    const { username, password } = readLogin(request.body)
    const failed = async (recordId: string | null, action: 'login_fallido' | 'login_alerta' = 'login_fallido') =>
      store.audit([{ userId: null, action, module: accountsModule, recordId, version: null, recordHash: null, fields: [] }])
    const address = clientAddress(request)
    const waitMs = await throttle.waitMs(username, address)
    if (waitMs > 0) {
      await failed(null) // no lookup: the answer is the same for every username
      throw loginDelayed(Math.ceil(waitMs / 1000))
    }
    const found = await accounts.credentials(username)
    const matches = await bcrypt.compare(password, found?.passwordHash ?? DUMMY_HASH)
    const account = found !== undefined && matches && found.active ? await accounts.activeAccount(found.id) : undefined
    if (account === undefined) {
      const { alert, usernameFailures } = await throttle.failed(username, address)
      await failed(found?.id ?? null)
      if (alert) {
        // Many addresses failing for one username (issue #13 item 2): an operator must look.
        const message = `Posible ataque: ${usernameFailures} inicios de sesión fallidos con el usuario '${username}'`
        request.log.error({ username, failures: usernameFailures, event: 'login_alerta' }, message)
        await failed(found?.id ?? null, 'login_alerta')
      }
      throw badCredentials()
    }
    await throttle.succeeded(username, address)
    const token = await app.issueToken(account.id)
    await store.audit([{ userId: account.id, action: 'login', module: accountsModule, recordId: account.id, version: null, recordHash: null, fields: [] }])
    const { _id: id, _created: _ignored, ...profile } = account.profile
    return { success: true, data: { token, user: { id, ...profile } } }
  })

  app.post('/auth/logout', async (request) => {
    const auth = await app.authenticate(request)
    const now = Math.floor(options.clock().getTime() / 1000)
    await accounts.revoke(auth.claims.jti, auth.claims.exp, now)
    await store.audit([{ userId: auth.account.id, action: 'logout', module: accountsModule, recordId: auth.account.id, version: null, recordHash: null, fields: [] }])
    return { success: true, data: { message: 'Sesión cerrada' } }
  })

  app.get('/me', async (request) => {
    const auth = await app.authenticate(request)
    return { success: true, data: auth.account.profile }
  })
}
