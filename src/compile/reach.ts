// Modules that only a `*.*` role can use: after adding a module, a role that
// lists modules one by one (the shipped administrador) does not reach it until it is named.
// Not an error (a module for superadmins only is legitimate), a warning of `records validate`.
import type { ServiceSpec } from './types.js'

export interface ReachWarning {
  readonly module: string
  readonly message: string
}

/** One warning per module that no role without `*.*` holds any permission on. */
export function unreachableModules(service: ServiceSpec): ReachWarning[] {
  const roles = [...service.roles.values()]
  const ordinary = roles.filter((r) => !r.permissions.includes('*.*'))
  const supers = roles.filter((r) => r.permissions.includes('*.*')).map((r) => r.name)
  return service.modules
    .filter((m) => !ordinary.some((r) => [...r.granted].some((p) => p.startsWith(`${m.name}.`))))
    .map((m) => {
      const who = `${supers.length > 1 ? 'n' : ''} ${supers.map((s) => `'${s}'`).join(', ') || 'ningún rol'}`
      const message =
        `el módulo '${m.name}' solo lo alcanza${who} (*.*): ` +
        `ningún otro rol tiene permisos ${m.name}.*. ` +
        `Si otros deben usarlo, añada '${m.name}.ver' o '${m.name}.*' a sus roles.`
      return { module: m.name, message }
    })
}
