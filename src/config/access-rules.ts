// What the JSON Schema cannot say about `access:` and `workflow:`: every field, role,
// state and user attribute they name exists, scopes can become indexed SQL, every state is reachable.
import { FIELD_DECLARATIONS } from './field-declarations.js'
import { didYouMean } from './suggest.js'
import type {
  AccessDef,
  ConditionDef,
  ConditionValueDef,
  DefPath,
  FieldDef,
  ModuleDef,
  ModulesConfig,
  WorkflowDef,
} from './types.js'

export type Report = (path: readonly (string | number)[], message: string, atKey?: boolean) => void

/** Metadata a scope may compare: the record's id and its creator (both indexed). */
const SCOPE_METADATA = ['_id', '_created_by']
/** Attributes of the acting user that are not fields of their account. */
const USER_BUILTINS = ['id', 'role']

const isUserRef = (value: ConditionValueDef): value is { user: string } =>
  value !== null && typeof value === 'object' && !Array.isArray(value)

function userAttributes(config: ModulesConfig): string[] {
  const accounts = config.modules.find((m) => m.name === config.service.accounts.module)
  const fields = (accounts?.fields ?? [])
    .filter((f) => !FIELD_DECLARATIONS[f.type].writeOnly && !f.encrypted)
    .map((f) => f.name)
  return [...USER_BUILTINS, ...fields]
}

/** A field is usable in a scope when SQL can compare it through an index: first column of one. */
function indexed(mod: ModuleDef, field: FieldDef): boolean {
  return field.index || field.unique || mod.indexes.some((names) => names[0] === field.name)
}

function checkValue(
  config: ModulesConfig,
  value: ConditionValueDef,
  field: FieldDef | undefined,
  at: readonly (string | number)[],
  report: Report,
): void {
  if (isUserRef(value)) {
    const known = userAttributes(config)
    if (!known.includes(value.user))
      report(
        at,
        `'$user.${value.user}' no es un dato del usuario (se admiten: ${known.map((k) => `$user.${k}`).join(', ')}).${didYouMean(value.user, known)}`,
      )
    return
  }
  const literals = Array.isArray(value) ? value : [value]
  if (field?.enum !== undefined)
    for (const literal of literals)
      if (typeof literal !== 'string' || !field.enum.includes(literal))
        report(at, `'${String(literal)}' no es un valor de ${field.name} (valores posibles: ${field.enum.join(', ')}).`)
}

function checkCondition(config: ModulesConfig, mod: ModuleDef, condition: ConditionDef, report: Report): void {
  if ('any' in condition || 'all' in condition) {
    for (const part of 'any' in condition ? condition.any : condition.all) checkCondition(config, mod, part, report)
    return
  }
  const where = `${mod.name}: la condición sobre '${condition.field}'`
  if (SCOPE_METADATA.includes(condition.field))
    return checkValue(config, condition.value, undefined, condition.at, report)
  const field = mod.fields.find((f) => f.name === condition.field)
  if (field === undefined)
    return report(
      condition.at,
      `${where} nombra un campo que no existe en el módulo.${didYouMean(condition.field, [...mod.fields.map((f) => f.name), ...SCOPE_METADATA])}`,
      true,
    )
  if (field.encrypted)
    report(condition.at, `${where}: un campo cifrado no se puede usar en un ámbito (se compara en SQL).`, true)
  else if (!FIELD_DECLARATIONS[field.type].comparable)
    report(condition.at, `${where}: un campo de tipo ${field.type} no se puede comparar.`, true)
  else if (!indexed(mod, field))
    report(
      condition.at,
      `${where}: el campo no tiene índice; añada 'index: true' al campo para que el ámbito no recorra la tabla.`,
      true,
    )
  checkValue(config, condition.value, field, condition.at, report)
}

function checkFieldList(
  mod: ModuleDef,
  names: readonly string[],
  at: readonly (string | number)[],
  what: string,
  report: Report,
): void {
  names.forEach((name, i) => {
    if (!mod.fields.some((f) => f.name === name))
      report(
        [...at, i],
        `${mod.name}: ${what} nombra un campo que no existe: '${name}'.${didYouMean(
          name,
          mod.fields.map((f) => f.name),
        )}`,
      )
  })
}

/** The field conditions of a scope that compare a field of the module with the acting user. */
function userMatches(condition: ConditionDef): { field: string; user: string; at: DefPath }[] {
  if ('any' in condition) return condition.any.flatMap(userMatches)
  if ('all' in condition) return condition.all.flatMap(userMatches)
  const value = condition.value
  return value !== null && typeof value === 'object' && 'user' in value
    ? [{ field: condition.field, user: value.user, at: condition.at }]
    : []
}

/** Whether one of `granted` (wildcards as written) gives `module.action`. */
const holds = (granted: readonly string[], module: string, action: string): boolean =>
  granted.some((p) => [`*.*`, `${module}.*`, `*.${action}`, `${module}.${action}`].includes(p))

/**
 * A role that may create or edit records must not write a field its scope compares with the
 * acting user: it could put a record in another user's scope (F10). `cannot_write` it.
 */
function checkScopeWritable(config: ModulesConfig, mod: ModuleDef, access: AccessDef, report: Report): void {
  if (access.scope === undefined) return
  const granted = config.roles.find((r) => r.name === access.role)?.permissions ?? []
  if (!holds(granted, mod.name, 'crear') && !holds(granted, mod.name, 'editar')) return
  for (const { field, user, at } of userMatches(access.scope))
    if (mod.fields.some((f) => f.name === field) && !access.cannotWrite.includes(field))
      report(
        at,
        `${mod.name}: el rol '${access.role}' puede escribir '${field}', que su ámbito compara con $user.${user}: podría poner un registro en el ámbito de otro usuario; añada '${field}' a cannot_write (y a defaults si debe tomar su valor).`,
        true,
      )
}

/** `access:` of every module: known roles, fields and user attributes; scopes on indexed fields. */
export function checkAccess(config: ModulesConfig, report: Report): void {
  const roles = config.roles.map((r) => r.name)
  for (const mod of config.modules) {
    for (const access of mod.access ?? []) {
      const at = ['modules', mod.name, 'access', access.role]
      if (!roles.includes(access.role))
        report(
          at,
          `${mod.name}: 'access' nombra un rol que no existe: '${access.role}'.${didYouMean(access.role, roles)}`,
          true,
        )
      if (access.scope !== undefined) checkCondition(config, mod, access.scope, report)
      checkScopeWritable(config, mod, access, report)
      if (access.writeScope !== undefined) checkCondition(config, mod, access.writeScope, report)
      checkFieldList(mod, access.cannotRead, [...at, 'cannot_read'], 'cannot_read', report)
      checkFieldList(mod, access.cannotWrite, [...at, 'cannot_write'], 'cannot_write', report)
      for (const { field: name, value } of access.defaults) {
        const field = mod.fields.find((f) => f.name === name)
        if (field === undefined || FIELD_DECLARATIONS[field.type].writeOnly)
          report(
            [...at, 'defaults', name],
            `${mod.name}: 'defaults' nombra un campo que no existe o no admite valor por defecto: '${name}'.${didYouMean(
              name,
              mod.fields.map((f) => f.name),
            )}`,
            true,
          )
        else checkValue(config, value, field, [...at, 'defaults', name], report)
      }
    }
  }
}

/** Every state reached from the creation states through the moves. */
function reachable(workflow: WorkflowDef, states: readonly string[], start: readonly string[]): Set<string> {
  const seen = new Set(start)
  const final = new Set(workflow.final)
  for (let grew = true; grew;) {
    grew = false
    for (const move of workflow.moves) {
      const leaves = move.from.includes('*') ? states.filter((s) => !final.has(s)) : move.from
      if (!leaves.some((s) => seen.has(s))) continue
      for (const to of move.to) {
        if (states.includes(to) && !seen.has(to)) {
          seen.add(to)
          grew = true
        }
      }
    }
  }
  return seen
}

function checkWorkflow(config: ModulesConfig, mod: ModuleDef, workflow: WorkflowDef, report: Report): void {
  const at = ['modules', mod.name, 'workflow']
  const stateField = mod.fields.find((f) => f.state)
  if (stateField?.enum === undefined)
    return report(at, `${mod.name}: 'workflow' necesita un campo de estado ('state: true' con 'enum').`, true)
  const states = stateField.enum
  const roles = config.roles.map((r) => r.name)
  const state = (name: string, path: readonly (string | number)[], star = false) => {
    if (!(star && name === '*') && !states.includes(name))
      report(
        path,
        `${mod.name}: '${name}' no es un estado del campo '${stateField.name}' (estados: ${states.join(', ')}).${didYouMean(name, states)}`,
      )
  }
  workflow.createIn?.forEach((s) => state(s, [...at, 'create_in']))
  workflow.final.forEach((s, i) => state(s, [...at, 'final', i]))
  workflow.moves.forEach((move, i) => {
    const moveAt = [...at, 'moves', i]
    move.from.forEach((s) => state(s, [...moveAt, 'from'], true))
    move.to.forEach((s) => state(s, [...moveAt, 'to']))
    for (const s of move.from)
      if (workflow.final.includes(s))
        report([...moveAt, 'from'], `${mod.name}: '${s}' es un estado final; ningún movimiento puede salir de él.`)
    move.roles?.forEach((r, j) => {
      if (!roles.includes(r))
        report(
          [...moveAt, 'roles', j],
          `${mod.name}: el movimiento nombra un rol que no existe: '${r}'.${didYouMean(r, roles)}`,
        )
    })
    checkFieldList(mod, move.requires, [...moveAt, 'requires'], 'requires', report)
  })
  workflow.finalEditableBy?.forEach((r, j) => {
    if (!roles.includes(r))
      report(
        [...at, 'final_editable_by', j],
        `${mod.name}: 'final_editable_by' nombra un rol que no existe: '${r}'.${didYouMean(r, roles)}`,
      )
  })
  if (workflow.finalEditableBy !== undefined && workflow.final.length === 0)
    report(
      [...at, 'final_editable_by'],
      `${mod.name}: 'final_editable_by' sin estados finales ('final') no tiene efecto.`,
      true,
    )
  workflow.readonly.forEach((rule, i) => {
    checkFieldList(mod, rule.fields, [...at, 'readonly', i, 'fields'], 'readonly', report)
    if (rule.fields.includes(stateField.name))
      report(
        [...at, 'readonly', i, 'fields'],
        `${mod.name}: el campo de estado cambia con los movimientos; no puede ser de solo lectura.`,
      )
    rule.in.forEach((s) => state(s, [...at, 'readonly', i, 'in']))
  })
  const start = workflow.createIn ?? states.slice(0, 1)
  const reached = reachable(workflow, states, start)
  for (const s of states)
    if (!reached.has(s))
      report(
        [...at, 'moves'],
        `${mod.name}: el estado '${s}' no se alcanza desde ${start.join(', ')} con los movimientos declarados.`,
        true,
      )
}

export function checkWorkflows(config: ModulesConfig, report: Report): void {
  for (const mod of config.modules) if (mod.workflow !== undefined) checkWorkflow(config, mod, mod.workflow, report)
}
