// D42: a role that may hand out access (create or edit accounts, or every permission) guards
// every other account; a stolen password of one is the worst kind. Not an error (the shipped
// file requires a factor of no role), a warning of `records validate` for each such role that
// does not require one.
import { managesAccounts } from './permissions.js'
import type { ServiceSpec } from './types.js'

export interface RoleWarning {
  readonly role: string
  readonly message: string
}

/** One warning per role that may create or edit accounts and does not require a second factor. */
export function unguardedAccountRoles(service: ServiceSpec): RoleWarning[] {
  const accounts = service.accounts.module
  return [...service.roles.values()]
    .filter((r) => !r.secondFactorRequired)
    .filter((r) => managesAccounts(r, accounts))
    .map((r) => ({
      role: r.name,
      message:
        `el rol '${r.name}' gestiona cuentas y no requiere segundo factor: ` +
        "añada 'segundo_factor: obligatorio' a su definición en roles (D42).",
    }))
}
