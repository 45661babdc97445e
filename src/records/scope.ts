// A role's compiled scope with the acting user's values filled in: what db/ turns
// into SQL. Pure; a user-valued match whose user has no value matches nothing.
import type { ModuleSpec, ScopeSpec } from '../compile/types.js'
import type { StorageKind } from '../compile/field-types.js'
import { userAttribute, type ActingUser } from './acting-user.js'

export type ResolvedScope =
  | { readonly kind: 'any' | 'all'; readonly of: readonly ResolvedScope[] }
  /** `column` holds one of `values`; no values: matches no record. */
  | { readonly kind: 'in'; readonly column: string; readonly storage: StorageKind; readonly values: readonly unknown[] }

/** Reading (ver, history, export) or changing (editar, eliminar) records. */
export type ScopeAction = 'read' | 'write'

function resolve(scope: ScopeSpec, user: ActingUser): ResolvedScope {
  if (scope.kind !== 'match') return { kind: scope.kind, of: scope.of.map((s) => resolve(s, user)) }
  const values = 'user' in scope.value ? [userAttribute(user, scope.value.user)] : scope.value.literals
  return {
    kind: 'in',
    column: scope.column,
    storage: scope.storage,
    values: values.filter((v) => v !== null && v !== undefined),
  }
}

/**
 * The records `user` may read or change in `spec`; undefined: all of them (no user, as the
 * command line's operator, or a role the module's `access:` does not scope).
 */
export function resolveScope(
  spec: ModuleSpec,
  user: ActingUser | null,
  action: ScopeAction,
): ResolvedScope | undefined {
  if (user === null) return undefined
  const access = spec.access.get(user.role)
  if (access === undefined) return undefined
  const parts = [access.scope, action === 'write' ? access.writeScope : undefined].filter((s) => s !== undefined)
  if (parts.length === 0) return undefined
  const resolved = parts.map((s) => resolve(s, user))
  return resolved.length === 1 ? resolved[0] : { kind: 'all', of: resolved }
}
