// Bearer tokens (API reference 5.1, D20) and permission checks (API reference 5.2, D21).
import { randomUUID } from 'node:crypto'
import fastifyJwt from '@fastify/jwt'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { RoleSpec, ServiceSpec } from '../compile/types.js'
import type { Account, AccountStore } from '../db/accounts/store.js'
import { enrolmentRequired, invalidToken, missingPermission, noToken } from '../errors.js'
import type { ActingUser } from '../records/acting-user.js'

export interface TokenClaims {
  readonly sub: string
  readonly jti: string
  /** The account's session version at issue; absent on tokens older than it (read as 0). */
  readonly sv?: number
  readonly iat?: number
  /** Always present: the service signs every token with an expiry (D20). */
  readonly exp: number
}

declare module '@fastify/jwt' {
  interface FastifyJWT {
    /** What the service signs; the signer adds iat and exp. */
    payload: Pick<TokenClaims, 'sub' | 'jti' | 'sv'>
    user: TokenClaims
  }
}

export interface AuthContext {
  readonly account: Account
  readonly role: RoleSpec
  readonly claims: TokenClaims
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext | undefined
  }
  interface FastifyContextConfig {
    /** The route's contract is `beforeEnrolment` (D42): open to an account that must still enrol a factor. */
    beforeEnrolment?: boolean
  }
  interface FastifyInstance {
    /** Verifies the bearer token and loads the account; throws 401 (D20). */
    authenticate(request: FastifyRequest): Promise<AuthContext>
    /**
     * The caller behind verified `claims`, checked again (revocation, disabled account, session
     * version, role): a live feed repeats this on every event and heartbeat. 401
     * otherwise; 403 while the role requires a second factor the account has not enrolled (D42).
     */
    authorizeClaims(claims: TokenClaims): Promise<AuthContext>
    /** A token for `account` under its current session version. */
    issueToken(account: Account): Promise<string>
  }
}

export interface AuthOptions {
  readonly service: ServiceSpec
  readonly accounts: AccountStore
  readonly secret: string
}

/** 403 naming the permission unless the caller's role holds it (wildcards expanded at compile time). */
export function requirePermission(auth: AuthContext, permission: string): void {
  if (!auth.role.granted.has(permission)) throw missingPermission(permission, auth.role.name)
}

/** The caller as record scopes, field rules and workflows see them. */
export const actingUser = (auth: AuthContext): ActingUser => ({
  id: auth.account.id,
  role: auth.account.role,
  fields: auth.account.fields,
})

export const holds = (auth: AuthContext, permission: string): boolean => auth.role.granted.has(permission)

async function authPlugin(app: FastifyInstance, options: AuthOptions): Promise<void> {
  await app.register(fastifyJwt, {
    secret: options.secret,
    sign: { algorithm: 'HS256', expiresIn: `${options.service.service.tokenDays}d` },
    // fast-jwt's cache of verified tokens (1,000, keyed by the token's hash, each until its exp and
    // at most 10 minutes): a client's next request skips the signature and the claims' parsing.
    // Revocation, the account and its session version are still checked on every request (caller).
    verify: { algorithms: ['HS256'], cache: true },
  })
  app.decorateRequest('auth', undefined)

  app.decorate('issueToken', async (account: Account) =>
    app.jwt.sign({ sub: account.id, jti: randomUUID(), sv: account.sessionVersion }),
  )

  app.decorate('authenticate', async (request: FastifyRequest): Promise<AuthContext> => {
    const header = request.headers.authorization
    if (header === undefined || header.trim() === '') throw noToken()
    if (!/^Bearer [A-Za-z0-9._~+/=-]+$/.test(header)) throw invalidToken()
    let claims: TokenClaims
    try {
      // The plugin's verifier, compiled once; request.jwtVerify() re-merges options per call.
      // Frozen: a cache hit hands every request of this token the same object.
      claims = Object.freeze(app.jwt.verify<TokenClaims>(header.slice('Bearer '.length)))
    } catch (error) {
      throw invalidToken(error)
    }
    const auth = await caller(claims)
    // D42, in the one place every token is checked: until the account enrols the factor its
    // role requires, only the routes whose contract says `beforeEnrolment` answer.
    if (mustEnrol(auth) && request.routeOptions.config.beforeEnrolment !== true)
      throw enrolmentRequired(auth.role.name, auth.role.passkeyRequired)
    request.auth = auth
    return auth
  })

  /** A role's factor not enrolled yet; for `segundo_factor: passkey` only a passkey counts. */
  const mustEnrol = (auth: AuthContext): boolean =>
    auth.role.secondFactorRequired && !(auth.role.passkeyRequired ? auth.account.passkey : auth.account.secondFactor)

  /** A live feed's ticket and its rechecks: no feed route is open before enrolment (D42). */
  async function authorizeClaims(claims: TokenClaims): Promise<AuthContext> {
    const auth = await caller(claims)
    if (mustEnrol(auth)) throw enrolmentRequired(auth.role.name, auth.role.passkeyRequired)
    return auth
  }

  async function caller(claims: TokenClaims): Promise<AuthContext> {
    if (typeof claims.sub !== 'string' || typeof claims.jti !== 'string' || typeof claims.exp !== 'number')
      throw invalidToken()
    const [revoked, account] = await Promise.all([
      options.accounts.isRevoked(claims.jti),
      options.accounts.activeAccount(claims.sub),
    ])
    // A password change, disable or re-enable since the token was issued ends it.
    if (revoked || account === undefined || (claims.sv ?? 0) !== account.sessionVersion) throw invalidToken()
    const role = options.service.roles.get(account.role)
    if (role === undefined) throw invalidToken()
    return { account, role, claims }
  }
  app.decorate('authorizeClaims', authorizeClaims)
}

export default fp(authPlugin, { name: 'records-auth' })
