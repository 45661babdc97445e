// Permission names `{module}.{action}` (API reference 5.2) and the roles that hold them (D21).
import { ACTIONS, BLOCKED_ACTION, type ModuleAction, type RoleDef } from '../config/types.js'
import type { RoleSpec } from './types.js'

export const permissionName = (namespace: string, action: string): string => `${namespace}.${action}`

/** A module's permission names; `bloqueados` (D41) too, which only a module with `retention:` grants. */
export function modulePermissions(name: string): Readonly<Record<ModuleAction, string>> {
  return Object.fromEntries(
    [...ACTIONS, BLOCKED_ACTION].map((action) => [action, permissionName(name, action)]),
  ) as Record<ModuleAction, string>
}

/** Every concrete permission a namespace offers. */
export interface Namespace {
  readonly name: string
  /** What a `*` action grants, and each by name. */
  readonly actions: readonly string[]
  /** Granted only where named, never by a `*` action (`bloqueados`, D41). */
  readonly namedOnly?: readonly string[]
}

function expand(permission: string, namespaces: readonly Namespace[]): string[] {
  const [moduleName, action] = permission.split('.')
  return namespaces
    .filter((ns) => moduleName === '*' || ns.name === moduleName)
    .flatMap((ns) =>
      (action === '*' ? ns.actions : [...ns.actions, ...(ns.namedOnly ?? [])].filter((a) => a === action)).map((a) =>
        permissionName(ns.name, a),
      ),
    )
}

export function compileRole(def: RoleDef, namespaces: readonly Namespace[]): RoleSpec {
  return {
    name: def.name,
    description: def.description,
    permissions: def.permissions,
    granted: new Set(def.permissions.flatMap((p) => expand(p, namespaces))),
    secondFactorRequired: def.secondFactor !== undefined,
    passkeyRequired: def.secondFactor === 'passkey',
  }
}

function grantCovers(grant: string, wanted: string): boolean {
  if (grant === '*.*') return true
  const [gm, ga] = grant.split('.')
  const [wm, wa] = wanted.split('.')
  // `bloqueados` is held only where named (D41): `denuncias.*` does not cover `denuncias.bloqueados`.
  if (wa === BLOCKED_ACTION) return ga === BLOCKED_ACTION && (gm === '*' || gm === wm)
  if (wm === '*') return false
  if (gm !== wm) return false
  return ga === '*' || (wa !== '*' && ga === wa)
}

/**
 * Whether `actor` holds everything `target` holds, wildcards compared as written:
 * only `*.*` covers `*.*`, so an administrador (every `{module}.*`) does not cover a
 * superadmin. Nobody may give, edit or remove an account above their own (D21). A role that
 * reads blocked records (`{module}.bloqueados`, D41) is covered only by one that names it too,
 * or by `*.*`: the superadmin, who configures the roles, may still give it (without reading
 * blocked records itself: `*.*` does not grant `bloqueados`).
 */
export function roleCovers(actor: RoleSpec, target: RoleSpec): boolean {
  return target.permissions.every((wanted) => actor.permissions.some((grant) => grantCovers(grant, wanted)))
}

/**
 * The role may create or edit accounts (module `accounts`): it hands out access, so its
 * passwords need the stricter minimum and `records validate` asks it for a second factor (D42).
 */
export function managesAccounts(role: RoleSpec, accounts: string): boolean {
  return role.granted.has(permissionName(accounts, 'crear')) || role.granted.has(permissionName(accounts, 'editar'))
}
