// Passkeys (WebAuthn, D42): the handlers of contracts/passkey.ts. @simplewebauthn/server checks
// the authenticator's answers; the challenges wait in the database (any instance takes the
// answer, each once); the credentials live in the factor store. A passkey with user
// verification is both factors at once, so its sign-in gives the token directly.
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AccountsSpec } from '../../compile/types.js'
import type { PasskeyCeremony, PasskeyChallengeStore } from '../../db/accounts/passkey-challenges.js'
import type { SecondFactorStore, StoredPasskey } from '../../db/accounts/second-factors.js'
import type { AccountStore } from '../../db/accounts/store.js'
import type { RecordStore } from '../../db/records/types.js'
import { CREDENTIAL_BODY, type PasskeyRoute } from '../../contracts/passkey.js'
import type { ContractFamily } from '../../contracts/route-contract.js'
import {
  badCredentials,
  badJson,
  loginDelayed,
  passkeyRejected,
  requiredMissing,
  secondFactorConflict,
  validationFailed,
} from '../../errors.js'
import { canonicalUsername } from '../../records/account-rules.js'
import { serveAuthenticated, serveRoute } from '../contract-route.js'
import { LOGIN_FAILED, type FailedLogins } from '../failed-logins.js'
import type { LoginThrottle } from '../login-throttle.js'
import { clientAddress } from '../rate-limit.js'
import { signedIn } from './session.js'

/** The relying party the passkeys belong to (WEBAUTHN_RP_ID, WEBAUTHN_ORIGIN). */
export interface RelyingParty {
  readonly id: string
  readonly origin: string
  readonly name: string
}

export interface PasskeyRoutesOptions {
  readonly contracts: ContractFamily<PasskeyRoute>
  readonly factors: SecondFactorStore
  readonly challenges: PasskeyChallengeStore
  readonly accounts: AccountStore
  readonly store: RecordStore
  readonly accountsSpec: AccountsSpec
  readonly throttle: LoginThrottle
  readonly failures: FailedLogins
  readonly relyingParty: RelyingParty
  readonly clock: () => Date
}

/** How long a ceremony's challenge may wait for its answer. */
export const CHALLENGE_MS = 5 * 60 * 1000

/** The outer shape of an authenticator's answer (CREDENTIAL_BODY): 400 otherwise; the library checks the rest. */
function credentialOf<T>(body: unknown): T {
  if (body === undefined) throw requiredMissing([{ field: 'id', message: "El campo 'id' es obligatorio" }])
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badJson()
  const b = body as Record<string, unknown>
  const missing = CREDENTIAL_BODY.required.filter((k) => b[k] === undefined || b[k] === '')
  if (missing.length > 0)
    throw requiredMissing(missing.map((field) => ({ field, message: `El campo '${field}' es obligatorio` })))
  const wrong = [
    ...(['id', 'rawId'] as const).filter((k) => typeof b[k] !== 'string'),
    ...(b['type'] === 'public-key' ? [] : ['type']),
    ...(typeof b['response'] === 'object' && b['response'] !== null && !Array.isArray(b['response'])
      ? []
      : ['response']),
  ]
  if (wrong.length > 0)
    throw validationFailed(
      wrong.map((field) => ({ field, message: `El campo '${field}' no tiene la forma de WebAuthn` })),
    )
  return body as T
}

export async function passkeyRoutes(app: FastifyInstance, options: PasskeyRoutesOptions): Promise<void> {
  const { factors, challenges, throttle, failures, relyingParty: rp } = options
  const { routes } = options.contracts
  const now = (): number => options.clock().getTime()
  const usernameOf = async (accountId: string): Promise<string> => {
    const { spec, username } = options.accountsSpec
    const record = await options.store.get(spec, accountId, { reveal: false, actor: accountId, user: null })
    return canonicalUsername(String(record[username] ?? ''))
  }
  /** A challenge for `ceremony`, as the bytes the options carry (their base64url is the challenge). */
  const challengeFor = async (ceremony: PasskeyCeremony): Promise<Uint8Array<ArrayBuffer>> =>
    new Uint8Array(Buffer.from(await challenges.issue(ceremony, now(), now() + CHALLENGE_MS), 'base64url'))
  const spends = (ceremony: PasskeyCeremony) => (challenge: string) => challenges.redeem(challenge, ceremony, now())
  const transports = (p: StoredPasskey) => [...p.transports] as AuthenticatorTransport[]

  serveAuthenticated(app, routes.registrationOptions, async (_request, _reply, auth) => {
    const id = auth.account.id
    const username = await usernameOf(id)
    const data = await generateRegistrationOptions({
      rpName: rp.name,
      rpID: rp.id,
      userName: username,
      userID: new TextEncoder().encode(id),
      challenge: await challengeFor({ ceremony: 'enrol', account: id }),
      timeout: CHALLENGE_MS,
      attestationType: 'none',
      excludeCredentials: (await factors.passkeys(id)).map((p) => ({ id: p.id, transports: transports(p) })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    })
    return { success: true, data }
  })

  serveAuthenticated(app, routes.register, async (request, reply, auth) => {
    const id = auth.account.id
    const response = credentialOf<RegistrationResponseJSON>(request.body)
    const verified = await verifyRegistrationResponse({
      response,
      expectedChallenge: spends({ ceremony: 'enrol', account: id }),
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: true,
    }).catch((error: unknown) => {
      request.log.info({ err: error, event: 'passkey_rechazada' }, 'alta de llave de acceso rechazada')
      throw passkeyRejected()
    })
    if (!verified.verified) throw passkeyRejected()
    const { credential } = verified.registrationInfo
    const by = { userId: id, address: clientAddress(request), requestId: request.id }
    const added = await factors.addPasskey(
      id,
      {
        id: credential.id,
        publicKey: credential.publicKey,
        counter: credential.counter,
        transports: credential.transports ?? [],
      },
      by,
    )
    if (added === undefined) throw secondFactorConflict('Esa llave de acceso ya está dada de alta')
    void reply.code(201)
    const codes = added.recoveryCodes
    return { success: true, data: { id: credential.id, ...(codes === undefined ? {} : { recuperacion: codes }) } }
  })

  serveRoute(app, routes.loginOptions, async () => {
    const data = await generateAuthenticationOptions({
      rpID: rp.id,
      challenge: await challengeFor({ ceremony: 'sign-in' }),
      timeout: CHALLENGE_MS,
      userVerification: 'required',
    })
    return { success: true, data }
  })

  /**
   * A failed assertion is a failed login (D19): counted against the passkey's account from this
   * address, or, for a credential no account has, against its id.
   */
  async function refuse(request: FastifyRequest, username: string, accountId: string | null): Promise<never> {
    await failures.count(request, username, accountId, LOGIN_FAILED)
    throw badCredentials()
  }

  serveRoute(app, routes.login, async (request) => {
    const response = credentialOf<AuthenticationResponseJSON>(request.body)
    const passkey = await factors.findPasskey(response.id)
    // An unknown credential (or one whose account is gone) is counted under its id.
    const unknown = `passkey:${response.id}`
    const username = passkey === undefined ? unknown : await usernameOf(passkey.accountId).catch(() => unknown)
    const waitMs = await throttle.waitMs(username, clientAddress(request))
    if (waitMs > 0) {
      await failures.failed(null, LOGIN_FAILED, request)
      throw loginDelayed(Math.ceil(waitMs / 1000), 'id')
    }
    if (passkey === undefined) return refuse(request, username, null)
    const verified = await verifyAuthenticationResponse({
      response,
      expectedChallenge: spends({ ceremony: 'sign-in' }),
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: {
        id: passkey.id,
        publicKey: new Uint8Array(passkey.publicKey),
        counter: passkey.counter,
        transports: transports(passkey),
      },
      requireUserVerification: true,
    }).catch((error: unknown) => {
      request.log.info({ err: error, event: 'passkey_rechazada' }, 'inicio de sesión con llave de acceso rechazado')
      return undefined
    })
    if (verified?.verified !== true) return refuse(request, username, passkey.accountId)
    if (!(await factors.usePasskey(passkey, verified.authenticationInfo.newCounter)))
      return refuse(request, username, passkey.accountId)
    const account = await options.accounts.activeAccount(passkey.accountId)
    if (account === undefined) return refuse(request, username, passkey.accountId)
    await throttle.succeeded(username, clientAddress(request))
    const token = await app.issueToken(account)
    await failures.audit(account.id, 'login', account.id)
    return signedIn(account, token)
  })
}
