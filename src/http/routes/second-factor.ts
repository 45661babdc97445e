// The caller's own second factors (D42): the handlers of contracts/second-factor.ts. The
// secrets and codes live in the factor store (encrypted, hashed); nothing here logs them.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AccountsSpec } from '../../compile/types.js'
import type { FactorActor, SecondFactorStore } from '../../db/accounts/second-factors.js'
import type { RecordStore } from '../../db/records/types.js'
import type { ContractFamily } from '../../contracts/route-contract.js'
import { CODE_BODY, type SecondFactorRoute } from '../../contracts/second-factor.js'
import {
  badJson,
  codeRejected,
  loginDelayed,
  recordNotFound,
  requiredMissing,
  secondFactorConflict,
  validationFailed,
} from '../../errors.js'
import { canonicalUsername } from '../../records/account-rules.js'
import type { AuthContext } from '../auth.js'
import { serveAuthenticated } from '../contract-route.js'
import type { FailedLogins } from '../failed-logins.js'
import type { LoginThrottle } from '../login-throttle.js'
import { clientAddress } from '../rate-limit.js'

export interface SecondFactorRoutesOptions {
  readonly contracts: ContractFamily<SecondFactorRoute>
  readonly factors: SecondFactorStore
  readonly store: RecordStore
  readonly accountsSpec: AccountsSpec
  readonly throttle: LoginThrottle
  readonly failures: FailedLogins
}

/** `{codigo}` and nothing else (CODE_BODY): 400 otherwise (D7). */
function codeOf(body: unknown): string {
  if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body))) throw badJson()
  const b = (body ?? {}) as Record<string, unknown>
  const [field] = CODE_BODY.required
  const unknown = Object.keys(b).filter((k) => k !== field)
  if (unknown.length > 0)
    throw validationFailed(unknown.map((k) => ({ field: k, message: `Campo desconocido '${k}'` })))
  const code = b[field]
  if (code === undefined || code === '')
    throw requiredMissing([{ field, message: `El campo '${field}' es obligatorio` }])
  if (typeof code !== 'string') throw validationFailed([{ field, message: `El campo '${field}' debe ser un texto` }])
  return code
}

export async function secondFactorRoutes(app: FastifyInstance, options: SecondFactorRoutesOptions): Promise<void> {
  const { factors, throttle, failures } = options
  const { routes } = options.contracts
  const actor = (request: FastifyRequest, auth: AuthContext): FactorActor => ({
    userId: auth.account.id,
    address: clientAddress(request),
    requestId: request.id,
  })
  /** The account's username as stored: the authenticator's label and the failed-login count's key. */
  const usernameOf = async (auth: AuthContext): Promise<string> => {
    const { spec, username } = options.accountsSpec
    const id = auth.account.id
    const record = await options.store.get(spec, id, { reveal: false, actor: id, user: null })
    return canonicalUsername(String(record[username] ?? ''))
  }

  serveAuthenticated(app, routes.list, async (_request, _reply, auth) => ({
    success: true,
    data: await factors.list(auth.account.id),
  }))

  serveAuthenticated(app, routes.startTotp, async (_request, reply, auth) => {
    const started = await factors.startTotp(auth.account.id, await usernameOf(auth))
    if (started === undefined)
      throw secondFactorConflict('La cuenta ya tiene un TOTP confirmado: quítelo antes de dar de alta otro')
    void reply.code(201)
    return { success: true, data: started }
  })

  serveAuthenticated(app, routes.confirmTotp, async (request, _reply, auth) => {
    const code = codeOf(request.body)
    const outcome = await factors.confirmTotp(auth.account.id, code, actor(request, auth))
    if (outcome.ok) return { success: true, data: { recuperacion: outcome.recoveryCodes } }
    if (outcome.reason === 'no_pending')
      throw secondFactorConflict('No hay un alta de TOTP pendiente: pídala con POST /me/segundo-factor/totp')
    throw codeRejected()
  })

  // A stolen token must not remove the factor by guessing: a wrong code counts against the
  // account from this address as a failed login does, and waits the same (D19, as F6 for passwords).
  serveAuthenticated<{ Params: { id: string } }>(app, routes.remove, async (request, _reply, auth) => {
    const code = codeOf(request.body)
    const id = auth.account.id
    const { factores } = await factors.list(id)
    if (!factores.some((f) => f.id === request.params.id)) throw recordNotFound()
    const username = await usernameOf(auth)
    const failure = { action: 'segundo_factor_fallido', actor: id } as const
    const waitMs = await throttle.waitMs(username, clientAddress(request))
    if (waitMs > 0) {
      await failures.failed(id, failure, request)
      throw loginDelayed(Math.ceil(waitMs / 1000), 'codigo')
    }
    if ((await factors.verify(id, code, actor(request, auth))) === undefined) {
      await failures.count(request, username, id, failure)
      throw codeRejected()
    }
    await throttle.succeeded(username, clientAddress(request))
    if (!(await factors.remove(id, request.params.id, actor(request, auth)))) throw recordNotFound()
    return { success: true, data: { message: 'Segundo factor eliminado' } }
  })
}
