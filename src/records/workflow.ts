// A module's workflow decided for one write: the state a record is created in, the
// move an update makes (who may, what it requires), fields read-only in the current state, fields
// the state requires (F9) and final states read-only but for `final_editable_by` (F9). Pure.
import type { ModuleSpec, WorkflowSpec } from '../compile/types.js'
import {
  creationStateNotAllowed,
  finalStateReadOnly,
  readOnlyInState,
  requiredMissing,
  transitionNotAllowed,
} from '../errors.js'
import type { ActingUser } from './acting-user.js'

type Values = Readonly<Record<string, unknown>>

const empty = (value: unknown): boolean => value === undefined || value === null || value === ''
const same = (a: unknown, b: unknown): boolean =>
  (empty(a) && empty(b)) || a === b || JSON.stringify(a) === JSON.stringify(b)

/** A new record through the API starts in one of the workflow's creation states (D6). */
export function checkCreation(spec: ModuleSpec, values: Values): void {
  const workflow = spec.workflow
  if (workflow === undefined) return
  const state = values[workflow.field]
  if (typeof state === 'string' && !workflow.createIn.includes(state))
    throw creationStateNotAllowed(workflow.field, workflow.createIn)
}

/** The states `role` may move a record to from `state`, in declaration order. */
export function nextStates(workflow: WorkflowSpec, state: string, role: string | null): string[] {
  if (workflow.final.has(state)) return []
  const moves = workflow.moves.get(state)
  if (moves === undefined) return []
  return [...moves]
    .filter(([, move]) => role === null || move.roles === undefined || move.roles.has(role))
    .map(([to]) => to)
}

/**
 * A record in a final state is read-only (F9): editing or deleting it is 409 unless the role is
 * in the workflow's `final_editable_by` (the command line, acting as no role, is not).
 */
export function checkFinal(
  spec: ModuleSpec,
  user: ActingUser | null,
  before: (field: string) => unknown,
  action: 'modificar' | 'eliminar',
): void {
  const workflow = spec.workflow
  if (workflow === undefined) return
  const current = String(before(workflow.field) ?? '')
  if (workflow.final.has(current) && !(user !== null && workflow.finalEditableBy.has(user.role)))
    throw finalStateReadOnly(workflow.field, current, action)
}

/**
 * Checks an update against the workflow: a final state (409), read-only fields of the current
 * state (409), the move itself for this role (409 with the allowed next states), then what the
 * move requires and what the resulting state requires and the update would clear (400 Datos
 * requeridos). `before` reads the record's current value of a field.
 */
export function checkUpdate(
  spec: ModuleSpec,
  user: ActingUser | null,
  before: (field: string) => unknown,
  changes: Values,
): void {
  const workflow = spec.workflow
  if (workflow === undefined) return
  checkFinal(spec, user, before, 'modificar')
  const current = String(before(workflow.field) ?? '')
  const locked = (workflow.readonlyIn.get(current) ?? []).filter((f) => f in changes && !same(changes[f], before(f)))
  if (locked.length > 0) throw readOnlyInState(locked, current)
  const target = changes[workflow.field]
  const moving = target !== undefined && target !== current
  if (moving) {
    const role = user?.role ?? null
    const allowed = nextStates(workflow, current, role)
    if (typeof target !== 'string' || !allowed.includes(target))
      throw transitionNotAllowed(workflow.field, current, allowed, role ?? '(línea de órdenes)')
  }
  const state = moving ? String(target) : current
  const requires = moving ? (workflow.moves.get(current)?.get(state)?.requires ?? []) : []
  const missing = requires.filter((f) => empty(f in changes ? changes[f] : before(f)))
  // What the state requires stays required (F9): a field it holds cannot be cleared. A record
  // imported without it is not refused for other changes, only for clearing it.
  const cleared = (workflow.requiredIn.get(state) ?? []).filter(
    (f) => !missing.includes(f) && f in changes && empty(changes[f]),
  )
  if (missing.length + cleared.length > 0)
    throw requiredMissing([
      ...missing.map((field) => ({ field, message: `El cambio de '${current}' a '${state}' requiere '${field}'` })),
      ...cleared.map((field) => ({ field, message: `El estado '${state}' requiere '${field}'` })),
    ])
}
