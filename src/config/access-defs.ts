// The `access:` and `workflow:` keys of a module, already shape-checked, as typed definitions.
import type { AccessDef, ConditionDef, ConditionValueDef, DefPath, LiteralDef, MoveDef, WorkflowDef } from './types.js'

type Raw = Record<string, unknown>
const asRaw = (value: unknown): Raw => (value ?? {}) as Raw
const USER_PREFIX = '$user.'

/** `$user.<attribute>` names the acting user; anything else is a literal (a list: any of them). */
export function toConditionValue(value: unknown): ConditionValueDef {
  if (typeof value === 'string' && value.startsWith(USER_PREFIX)) return { user: value.slice(USER_PREFIX.length) }
  return value as LiteralDef | LiteralDef[]
}

/** A map of conditions is their conjunction; a single key stays itself. */
export function toCondition(raw: unknown, at: DefPath): ConditionDef {
  const parts: ConditionDef[] = Object.entries(asRaw(raw)).map(([key, value]): ConditionDef => {
    if (key === 'any' || key === 'all') {
      const of = (value as unknown[]).map((item, i) => toCondition(item, [...at, key, i]))
      return key === 'any' ? { any: of } : { all: of }
    }
    return { field: key, value: toConditionValue(value), at: [...at, key] }
  })
  return parts.length === 1 ? (parts[0] as ConditionDef) : { all: parts }
}

const list = (value: unknown): string[] =>
  value === undefined ? [] : typeof value === 'string' ? [value] : (value as string[])

export function toAccess(moduleName: string, raw: unknown): AccessDef[] {
  return Object.entries(asRaw(raw)).map(([role, value]) => {
    const def = asRaw(value)
    const at = ['modules', moduleName, 'access', role]
    return {
      role,
      ...(def['scope'] === undefined ? {} : { scope: toCondition(def['scope'], [...at, 'scope']) }),
      ...(def['write_scope'] === undefined
        ? {}
        : { writeScope: toCondition(def['write_scope'], [...at, 'write_scope']) }),
      cannotRead: list(def['cannot_read']),
      cannotWrite: list(def['cannot_write']),
      defaults: Object.entries(asRaw(def['defaults'])).map(([field, v]) => ({ field, value: toConditionValue(v) })),
    }
  })
}

export function toWorkflow(raw: unknown): WorkflowDef | undefined {
  if (raw === undefined) return undefined
  const def = asRaw(raw)
  const moves: MoveDef[] = (def['moves'] as unknown[]).map((m) => {
    const move = asRaw(m)
    return {
      from: list(move['from']),
      to: list(move['to']),
      ...(move['roles'] === undefined ? {} : { roles: move['roles'] as string[] }),
      requires: list(move['requires']),
    }
  })
  return {
    ...(def['create_in'] === undefined ? {} : { createIn: list(def['create_in']) }),
    moves,
    final: list(def['final']),
    ...(def['final_editable_by'] === undefined ? {} : { finalEditableBy: list(def['final_editable_by']) }),
    readonly: ((def['readonly'] as unknown[] | undefined) ?? []).map((r) => ({
      fields: list(asRaw(r)['fields']),
      in: list(asRaw(r)['in']),
    })),
  }
}
