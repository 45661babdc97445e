// What a user may do in a module, and on one record, with the rule that decides each point:
// the text of `records explain`, the question an auditor asks. Pure.
import { retentionNote } from '../compile/retention.js'
import type { ModuleSpec, RoleSpec, ScopeSpec } from '../compile/types.js'
import { userAttribute, type ActingUser } from './acting-user.js'
import { nextStates } from './workflow.js'

type Values = Readonly<Record<string, unknown>>

function describeValue(scope: Extract<ScopeSpec, { kind: 'match' }>, user: ActingUser): string {
  if ('literals' in scope.value) return scope.value.literals.map((v) => JSON.stringify(v)).join(' | ')
  const value = userAttribute(user, scope.value.user)
  return `$user.${scope.value.user} (${value === null ? 'sin valor: no coincide con ningún registro' : String(value)})`
}

function matches(scope: Extract<ScopeSpec, { kind: 'match' }>, user: ActingUser, record: Values): boolean {
  const wanted = 'literals' in scope.value ? scope.value.literals : [userAttribute(user, scope.value.user)]
  const actual = record[scope.field]
  return actual !== null && actual !== undefined && wanted.some((w) => w !== null && String(w) === String(actual))
}

/** A scope as one line; with a record, each condition marked as met or not. */
export function describeScope(scope: ScopeSpec, user: ActingUser, record?: Values): string {
  if (scope.kind !== 'match') {
    const parts = scope.of.map((s) => describeScope(s, user, record))
    return `(${parts.join(scope.kind === 'any' ? ' o ' : ' y ')})`
  }
  const mark = record === undefined ? '' : matches(scope, user, record) ? ' [cumple]' : ' [no cumple]'
  return `${scope.field} = ${describeValue(scope, user)}${mark}`
}

/** What `user` (of `role`) may do in `spec`, rule by rule. */
export function explainModule(spec: ModuleSpec, role: RoleSpec, user: ActingUser): string[] {
  // `bloqueados` (D41) only where records can be blocked: a module with `retention:`.
  const actions = (Object.keys(spec.permissions) as (keyof ModuleSpec['permissions'])[]).filter(
    (a) => a !== 'bloqueados' || spec.retention !== undefined,
  )
  const held = actions.filter((a) => role.granted.has(spec.permissions[a]))
  const lines = [
    `Módulo ${spec.name}, rol ${role.name}`,
    `  Permisos: ${held.length === 0 ? 'ninguno' : held.map((a) => spec.permissions[a]).join(', ')}` +
      (held.length < actions.length ? `; sin ${actions.filter((a) => !held.includes(a)).join(', ')}` : ''),
  ]
  const access = spec.access.get(role.name)
  lines.push(
    access?.scope === undefined
      ? `  Registros: todos los del módulo (access.${role.name}.scope no declarado)`
      : `  Registros: solo los que cumplen access.${role.name}.scope: ${describeScope(access.scope, user)}`,
  )
  if (access?.writeScope !== undefined)
    lines.push(
      `  Modificar y eliminar: además access.${role.name}.write_scope: ${describeScope(access.writeScope, user)}`,
    )
  lines.push(`  Campos que no lee (cannot_read): ${[...(access?.cannotRead ?? [])].join(', ') || 'ninguno'}`)
  lines.push(`  Campos que no escribe (cannot_write): ${[...(access?.cannotWrite ?? [])].join(', ') || 'ninguno'}`)
  for (const d of access?.defaults ?? [])
    lines.push(
      `  Al crear, ${d.field} toma ${'user' in d.value ? `$user.${d.value.user} (${String(userAttribute(user, d.value.user))})` : JSON.stringify(d.value.literal)} (defaults)`,
    )
  lines.push(
    spec.retention === undefined
      ? "  Conservación: el módulo no declara 'retention:' (D41)"
      : `  ${retentionNote(spec.retention)}`,
  )
  const workflow = spec.workflow
  if (workflow !== undefined) {
    lines.push(
      `  Workflow de ${workflow.field}: se crea en ${workflow.createIn.join(', ')}; finales: ${[...workflow.final].join(', ') || 'ninguno'}`,
    )
    for (const state of workflow.states) {
      const next = nextStates(workflow, state, role.name)
      lines.push(
        `    ${state} -> ${
          next.length === 0
            ? '(ninguno para este rol)'
            : next
                .map((to) => {
                  const requires = workflow.moves.get(state)?.get(to)?.requires ?? []
                  return requires.length === 0 ? to : `${to} (requiere ${requires.join(', ')})`
                })
                .join(', ')
        }`,
      )
    }
  }
  return lines
}

export interface RecordFacts {
  readonly id: string
  /** The record as stored, undefined when no live record has that id. */
  readonly record: Values | undefined
  readonly visible: boolean
  /** A retention decision blocks it (D41); absent: not blocked. */
  readonly blocked?: boolean
}

/** On one record: whether the user reaches it, and by which rule; the moves and locks of its state. */
export function explainRecord(spec: ModuleSpec, role: RoleSpec, user: ActingUser, facts: RecordFacts): string[] {
  if (facts.record === undefined) return [`Registro ${facts.id}: no existe o está eliminado (404 para todos)`]
  const access = spec.access.get(role.name)
  const lines = [`Registro ${facts.id}`]
  if (!facts.visible)
    return [
      ...lines,
      `  Fuera de su ámbito: GET, PUT, DELETE e historial responden 404 (access.${role.name}.scope: ${describeScope(access?.scope as ScopeSpec, user, facts.record)})`,
    ]
  lines.push(
    access?.scope === undefined
      ? '  Visible: su rol no tiene ámbito en este módulo'
      : `  Visible por access.${role.name}.scope: ${describeScope(access.scope, user, facts.record)}`,
  )
  if (facts.blocked === true)
    lines.push(
      role.granted.has(spec.permissions.bloqueados)
        ? `  Bloqueado (D41): fuera de las listas; lo lee por id con ${spec.permissions.bloqueados} indicando el motivo; PUT y DELETE responden 403`
        : `  Bloqueado (D41): fuera de las listas; GET, historial, PUT y DELETE responden 403 (falta ${spec.permissions.bloqueados} para leerlo)`,
    )
  if (!role.granted.has(spec.permissions.editar))
    lines.push(`  No puede modificarlo: falta el permiso ${spec.permissions.editar}`)
  const workflow = spec.workflow
  if (workflow !== undefined) {
    const state = String(facts.record[workflow.field] ?? '')
    const next = nextStates(workflow, state, role.name)
    lines.push(
      `  ${workflow.field} = ${state}${workflow.final.has(state) ? ' (final)' : ''}; puede pasar a: ${next.join(', ') || 'ninguno'}`,
    )
    if (workflow.final.has(state))
      lines.push(
        workflow.finalEditableBy.has(role.name)
          ? `  Estado final: su rol puede aún modificarlo o eliminarlo (workflow.final_editable_by)`
          : `  Estado final: de solo lectura, PUT y DELETE responden 409 (F9; workflow.final_editable_by no nombra su rol)`,
      )
    const locked = workflow.readonlyIn.get(state) ?? []
    if (locked.length > 0) lines.push(`  De solo lectura en este estado: ${locked.join(', ')}`)
    const held = workflow.requiredIn.get(state) ?? []
    if (held.length > 0) lines.push(`  No se pueden vaciar en este estado: ${held.join(', ')}`)
  }
  return lines
}
