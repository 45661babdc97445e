// Nobody may create, edit or delete an account whose role exceeds their own, nor give
// one such a role (D21): an administrador cannot touch a superadmin, nobody raises
// their own role. With the username and password rules, it is the accounts module's write hook:
// the store runs it on the row its write locks (no read before the lock).
import { roleCovers } from '../compile/permissions.js'
import type { ServiceSpec } from '../compile/types.js'
import type { WriteHook } from '../db/records/types.js'
import { forbidden } from '../errors.js'
import type { AccountRules } from '../records/account-rules.js'
import type { AuthContext } from './auth.js'

export function guardAccountWrite(
  service: ServiceSpec,
  auth: AuthContext,
  roles: { readonly before?: unknown; readonly after?: unknown },
): void {
  for (const name of [roles.before, roles.after]) {
    if (typeof name !== 'string') continue
    const target = service.roles.get(name)
    if (target !== undefined && !roleCovers(auth.role, target))
      throw forbidden([
        {
          field: service.accounts.role,
          message: `El rol '${auth.role.name}' no cubre los permisos del rol '${name}': nadie gestiona cuentas por encima del suyo`,
        },
      ])
  }
}

/**
 * The accounts module's write hook for `auth`'s writes: the guard on the role the account has
 * (as locked) and the one it is given, then the username and password rules on the values
 * written, an update's against the account as locked (F8).
 */
export const accountWriteHook =
  (service: ServiceSpec, rules: AccountRules, auth: AuthContext): WriteHook =>
  ({ before, after }) => {
    const role = service.accounts.role
    guardAccountWrite(service, auth, { before: before?.[role], after: after?.[role] })
    return after === undefined ? undefined : rules.check(after, before)
  }
