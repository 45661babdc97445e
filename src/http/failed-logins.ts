// A failed proof of who someone is: a wrong password at login (D19), a wrong current password
// (F6), a wrong second-factor code at login or to remove a factor (D42). Each counts against the
// username from the request's address (login-throttle.ts) and is an audit entry; the count's
// ceiling raises an alert.
import type { FastifyRequest } from 'fastify'
import type { AuditAction } from '../db/audit/log.js'
import type { RecordStore } from '../db/records/types.js'
import type { LoginThrottle } from './login-throttle.js'
import { clientAddress } from './rate-limit.js'

/** A failure of a login (no actor) or of a signed-in user's proof (the token's account, F6, D42). */
export interface Failure {
  readonly action: 'login_fallido' | 'password_fallido' | 'segundo_factor_fallido'
  readonly actor: string | null
}

export const LOGIN_FAILED: Failure = { action: 'login_fallido', actor: null }

export interface FailedLogins {
  /** An audit entry of the accounts module; with `request`, it names the address and request id. */
  audit(recordId: string | null, action: AuditAction, actor: string | null, request?: FastifyRequest): Promise<void>
  /** The entry of a failure, without counting it (a try refused unchecked while the address waits). */
  failed(recordId: string | null, f: Failure, request: FastifyRequest): Promise<void>
  /** One more failure of `username` from the request's address, audited; an alert at the ceiling. */
  count(request: FastifyRequest, username: string, recordId: string | null, f: Failure): Promise<void>
}

export function createFailedLogins(store: RecordStore, accountsModule: string, throttle: LoginThrottle): FailedLogins {
  // An entry with an actor names where the request came from: the token was used from there.
  const audit: FailedLogins['audit'] = (recordId, action, actor, request) =>
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
  const failed: FailedLogins['failed'] = (recordId, f, request) =>
    audit(recordId, f.action, f.actor, f.actor === null ? undefined : request)
  return {
    audit,
    failed,
    async count(request, username, recordId, f) {
      const { alert, usernameFailures } = await throttle.failed(username, clientAddress(request))
      await failed(recordId, f, request)
      if (!alert) return
      // Many addresses failing for one username: an operator must look.
      const message = `Posible ataque: ${usernameFailures} inicios de sesión fallidos con el usuario '${username}'`
      request.log.error({ username, failures: usernameFailures, event: 'login_alerta' }, message)
      await audit(recordId, 'login_alerta', null)
    },
  }
}
