// `access:` and `workflow:` of a module compiled into lookup data: scopes as
// conditions for db/ to turn into SQL, field rules and moves as sets and maps for records/.
import type { AccessDef, ConditionDef, ConditionValueDef, ModuleDef, WorkflowDef } from '../config/types.js'
import { META_COLUMNS } from './metadata.js'
import type { AccessSpec, FieldSpec, MoveSpec, ScopeSpec, ScopeValueSpec, WorkflowSpec } from './types.js'

const isUserRef = (value: ConditionValueDef): value is { readonly user: string } =>
  value !== null && typeof value === 'object' && !Array.isArray(value)

function compileValue(value: ConditionValueDef): ScopeValueSpec {
  if (isUserRef(value)) return { user: value.user }
  return { literals: Array.isArray(value) ? value : [value] }
}

/** Pure: a validated condition in, a scope out; nested and/or of one kind are flattened. */
export function compileScope(condition: ConditionDef, fields: ReadonlyMap<string, FieldSpec>): ScopeSpec {
  if ('any' in condition || 'all' in condition) {
    const kind = 'any' in condition ? 'any' : 'all'
    const of = ('any' in condition ? condition.any : condition.all).map((c) => compileScope(c, fields))
    if (of.length === 1) return of[0] as ScopeSpec
    return { kind, of: of.flatMap((c) => (c.kind === kind ? c.of : [c])) }
  }
  const field = fields.get(condition.field)
  const meta = META_COLUMNS.find((c) => c.name === condition.field)
  return {
    kind: 'match',
    field: condition.field,
    column: field?.column ?? condition.field,
    storage: field?.storage ?? meta?.storage ?? 'text',
    value: compileValue(condition.value),
  }
}

function compileRoleAccess(def: AccessDef, fields: ReadonlyMap<string, FieldSpec>): AccessSpec {
  return {
    role: def.role,
    scope: def.scope === undefined ? undefined : compileScope(def.scope, fields),
    writeScope: def.writeScope === undefined ? undefined : compileScope(def.writeScope, fields),
    cannotRead: new Set(def.cannotRead),
    cannotWrite: new Set(def.cannotWrite),
    defaults: def.defaults.map(({ field, value }) => ({
      field,
      value: isUserRef(value) ? { user: value.user } : { literal: value },
    })),
  }
}

export function compileAccess(def: ModuleDef, fields: ReadonlyMap<string, FieldSpec>): ReadonlyMap<string, AccessSpec> {
  return new Map((def.access ?? []).map((a) => [a.role, compileRoleAccess(a, fields)]))
}

/** Several declarations of one move merge: the union of their roles (any open one opens it) and requirements. */
function mergeMove(
  before: MoveSpec | undefined,
  roles: readonly string[] | undefined,
  requires: readonly string[],
): MoveSpec {
  const mergedRoles =
    before === undefined
      ? roles === undefined
        ? undefined
        : new Set(roles)
      : before.roles === undefined || roles === undefined
        ? undefined
        : new Set([...before.roles, ...roles])
  return { roles: mergedRoles, requires: [...new Set([...(before?.requires ?? []), ...requires])] }
}

export function compileWorkflow(def: ModuleDef): WorkflowSpec | undefined {
  const workflow: WorkflowDef | undefined = def.workflow
  const stateField = def.fields.find((f) => f.state)
  if (workflow === undefined || stateField?.enum === undefined) return undefined
  const states = stateField.enum
  const final = new Set(workflow.final)
  const moves = new Map<string, Map<string, MoveSpec>>()
  for (const move of workflow.moves) {
    const leaves = move.from.includes('*') ? states.filter((s) => !final.has(s)) : move.from
    for (const from of leaves) {
      const targets = moves.get(from) ?? new Map<string, MoveSpec>()
      moves.set(from, targets)
      for (const to of move.to) if (to !== from) targets.set(to, mergeMove(targets.get(to), move.roles, move.requires))
    }
  }
  const readonlyIn = new Map<string, string[]>()
  for (const rule of workflow.readonly)
    for (const state of rule.in) readonlyIn.set(state, [...new Set([...(readonlyIn.get(state) ?? []), ...rule.fields])])
  const createIn = workflow.createIn ?? states.slice(0, 1)
  return {
    field: stateField.name,
    states,
    createIn,
    final,
    finalEditableBy: new Set(workflow.finalEditableBy),
    moves,
    readonlyIn,
    requiredIn: requiredByState(states, createIn, moves),
  }
}

/**
 * The fields a record must hold in each state (F9): those that every way into the state from a
 * creation state required on some move of the way (a must-analysis: the intersection over the
 * incoming moves of what the move requires and what its origin holds). A creation state holds none.
 */
function requiredByState(
  states: readonly string[],
  createIn: readonly string[],
  moves: ReadonlyMap<string, ReadonlyMap<string, MoveSpec>>,
): ReadonlyMap<string, readonly string[]> {
  const everything = new Set([...moves.values()].flatMap((targets) => [...targets.values()].flatMap((m) => m.requires)))
  const held = new Map<string, Set<string>>(states.map((s) => [s, new Set(createIn.includes(s) ? [] : everything)]))
  for (let shrank = true; shrank;) {
    shrank = false
    for (const to of states) {
      if (createIn.includes(to)) continue
      const ways = [...moves].flatMap(([from, targets]) => {
        const move = targets.get(to)
        return move === undefined ? [] : [new Set([...(held.get(from) ?? []), ...move.requires])]
      })
      const now = held.get(to) as Set<string>
      for (const field of [...now])
        if (!ways.every((way) => way.has(field))) {
          now.delete(field)
          shrank = true
        }
    }
  }
  return new Map(states.map((s) => [s, [...(held.get(s) as Set<string>)]]))
}

/** Account fields named as `$user.<field>` anywhere: the account store loads them with the account. */
export function userFieldsOf(modules: readonly ModuleDef[], accountFields: readonly string[]): string[] {
  const named = new Set<string>()
  const visit = (value: ConditionValueDef) => {
    if (isUserRef(value) && accountFields.includes(value.user)) named.add(value.user)
  }
  const walk = (c: ConditionDef): void => {
    if ('any' in c) c.any.forEach(walk)
    else if ('all' in c) c.all.forEach(walk)
    else visit(c.value)
  }
  for (const mod of modules)
    for (const access of mod.access ?? []) {
      if (access.scope !== undefined) walk(access.scope)
      if (access.writeScope !== undefined) walk(access.writeScope)
      for (const d of access.defaults) visit(d.value)
    }
  return [...named]
}
