// Permission names `{module}.{action}` (API reference 5.2) and the roles that hold them (D21).
import { ACTIONS, type Action, type RoleDef } from '../config/types.js'
import type { RoleSpec } from './types.js'

export const permissionName = (namespace: string, action: string): string => `${namespace}.${action}`

export function modulePermissions(name: string): Readonly<Record<Action, string>> {
  return Object.fromEntries(ACTIONS.map((action) => [action, permissionName(name, action)])) as Record<Action, string>
}

/** Every concrete permission a namespace offers. */
export interface Namespace {
  readonly name: string
  readonly actions: readonly string[]
}

function expand(permission: string, namespaces: readonly Namespace[]): string[] {
  const [moduleName, action] = permission.split('.')
  return namespaces
    .filter((ns) => moduleName === '*' || ns.name === moduleName)
    .flatMap((ns) => ns.actions.filter((a) => action === '*' || a === action).map((a) => permissionName(ns.name, a)))
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
  if (wm === '*') return false
  if (gm !== wm) return false
  return ga === '*' || (wa !== '*' && ga === wa)
}

/**
 * Whether `actor` holds everything `target` holds, wildcards compared as written:
 * only `*.*` covers `*.*`, so an administrador (every `{module}.*`) does not cover a
 * superadmin. Nobody may give, edit or remove an account above their own (D21).
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
