// A module's workflow decided for one write (issue #14): the state a record is created in, the
// move an update makes (who may, what it requires) and fields read-only in the current state. Pure.
import type { ModuleSpec, WorkflowSpec } from '../compile/types.js'
import { creationStateNotAllowed, readOnlyInState, requiredMissing, transitionNotAllowed } from '../errors.js'
import type { ActingUser } from './acting-user.js'

type Values = Readonly<Record<string, unknown>>

const empty = (value: unknown): boolean => value === undefined || value === null || value === ''
const same = (a: unknown, b: unknown): boolean => (empty(a) && empty(b)) || a === b || JSON.stringify(a) === JSON.stringify(b)

/** A new record through the API starts in one of the workflow's creation states (D6). */
export function checkCreation(spec: ModuleSpec, values: Values): void {
  const workflow = spec.workflow
  if (workflow === undefined) return
  const state = values[workflow.field]
  if (typeof state === 'string' && !workflow.createIn.includes(state)) throw creationStateNotAllowed(workflow.field, workflow.createIn)
}

/** The states `role` may move a record to from `state`, in declaration order. */
export function nextStates(workflow: WorkflowSpec, state: string, role: string | null): string[] {
  if (workflow.final.has(state)) return []
  const moves = workflow.moves.get(state)
  if (moves === undefined) return []
  return [...moves].filter(([, move]) => role === null || move.roles === undefined || move.roles.has(role)).map(([to]) => to)
}

/**
 * Checks an update against the workflow: read-only fields of the current state (409), the
 * move itself for this role (409 with the allowed next states), then what the move requires
 * (400 Datos requeridos). `before` reads the record's current value of a field.
 */
export function checkUpdate(spec: ModuleSpec, user: ActingUser | null, before: (field: string) => unknown, changes: Values): void {
  const workflow = spec.workflow
  if (workflow === undefined) return
  const current = String(before(workflow.field) ?? '')
  const locked = (workflow.readonlyIn.get(current) ?? []).filter((f) => f in changes && !same(changes[f], before(f)))
  if (locked.length > 0) throw readOnlyInState(locked, current)
  const target = changes[workflow.field]
  if (target === undefined || target === current) return
  const role = user?.role ?? null
  const allowed = nextStates(workflow, current, role)
  if (typeof target !== 'string' || !allowed.includes(target))
    throw transitionNotAllowed(workflow.field, current, allowed, role ?? '(línea de órdenes)')
  const requires = workflow.moves.get(current)?.get(target)?.requires ?? []
  const missing = requires.filter((f) => empty(f in changes ? changes[f] : before(f)))
  if (missing.length > 0)
    throw requiredMissing(missing.map((field) => ({ field, message: `El cambio de '${current}' a '${target}' requiere '${field}'` })))
}
