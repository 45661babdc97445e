// Nobody may create, edit or delete an account whose role exceeds their own, nor give
// one such a role (D21): an administrador cannot touch a superadmin, nobody raises
// their own role.
import { roleCovers } from '../compile/permissions.js'
import type { ServiceSpec } from '../compile/types.js'
import { forbidden } from '../errors.js'
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
      throw forbidden([{ field: service.accounts.role, message: `El rol '${auth.role.name}' no cubre los permisos del rol '${name}': nadie gestiona cuentas por encima del suyo` }])
  }
}
