// What one role may see and do in each module (D46): the console's forms and lists are built from
// it, so no rule lives in the browser. Read from the compiled rules the API itself enforces
// (permissions, field rules, workflow moves, motivo_requerido); decides nothing new. Pure.
import type { ModuleSpec, RoleSpec } from '../compile/types.js'
import { filterOperatorsFor, queryReader, searchableFor, sortableFor, type QueryReader } from './query-access.js'
import { nextStates } from './workflow.js'

export interface FieldView {
  readonly nombre: string
  readonly tipo: string
  /** The value's type in words (`fecha AAAA-MM-DD`), for a hint. */
  readonly ayuda: string
  readonly descripcion?: string
  readonly requerido: boolean
  /** In the role's answers (not a write-only password, not in its `cannot_read`). */
  readonly lee: boolean
  /** In the role's bodies (not in its `cannot_write`, not an uploaded file). */
  readonly escribe: boolean
  readonly cifrado: boolean
  /** The list sorts by it for this role, and `operadores` filter it: what GET /{module} accepts from it. */
  readonly ordenable: boolean
  readonly operadores: readonly string[]
  readonly valores?: readonly string[]
  readonly formato?: string
  readonly modulo?: string
}

export interface WorkflowView {
  readonly campo: string
  readonly estados: readonly string[]
  readonly inicial: readonly string[]
  readonly finales: readonly string[]
  /** From each state, the moves this role may make, and the fields each requires. */
  readonly movimientos: Readonly<
    Record<string, readonly { readonly a: string; readonly requiere: readonly string[] }[]>
  >
}

export interface ModuleView {
  readonly nombre: string
  readonly descripcion: string
  readonly prefijo: string
  /** The module actions (`ver`, `crear`, `editar`, `eliminar`, `descifrar`) the role holds. */
  readonly acciones: readonly string[]
  /** The list takes `q` from this role: some `searchable` field it reads (it searches those). */
  readonly busqueda: boolean
  /** The actions for which this role must send X-Motivo. */
  readonly motivo: readonly string[]
  readonly campos: readonly FieldView[]
  readonly workflow?: WorkflowView
}

const ACTIONS = ['ver', 'crear', 'editar', 'eliminar', 'descifrar'] as const

function fieldView(spec: ModuleSpec, role: RoleSpec, reader: QueryReader, name: string): FieldView | undefined {
  const field = spec.fieldsByName.get(name)
  if (field === undefined) return undefined
  const access = spec.access.get(role.name)
  const def = field.def
  return {
    nombre: field.name,
    tipo: def.type,
    ayuda: field.label,
    ...(def.description === undefined ? {} : { descripcion: def.description }),
    requerido: def.required,
    lee: !field.writeOnly && !(access?.cannotRead.has(name) ?? false),
    escribe: field.uploaded !== true && !(access?.cannotWrite.has(name) ?? false),
    cifrado: field.encrypted,
    ordenable: sortableFor(field, reader),
    operadores: filterOperatorsFor(field, reader),
    ...(def.enum === undefined ? {} : { valores: def.enum }),
    ...(def.format === undefined ? {} : { formato: def.format }),
    ...(def.module === undefined ? {} : { modulo: def.module }),
  }
}

function workflowView(spec: ModuleSpec, role: RoleSpec): WorkflowView | undefined {
  const workflow = spec.workflow
  if (workflow === undefined) return undefined
  const movimientos: Record<string, { a: string; requiere: readonly string[] }[]> = {}
  // A move is an edit: a role without editar makes none, whatever the moves' `roles` say.
  const edits = role.granted.has(spec.permissions.editar)
  for (const state of workflow.states)
    movimientos[state] = (edits ? nextStates(workflow, state, role.name) : []).map((to) => ({
      a: to,
      requiere: workflow.moves.get(state)?.get(to)?.requires ?? [],
    }))
  return {
    campo: workflow.field,
    estados: workflow.states,
    inicial: workflow.createIn,
    finales: [...workflow.final],
    movimientos,
  }
}

/** The modules `role` may list (`{module}.ver`), each as that role sees it; the others are left out. */
export function moduleViews(modules: readonly ModuleSpec[], role: RoleSpec): ModuleView[] {
  return modules
    .filter((spec) => role.granted.has(spec.permissions.ver))
    .map((spec) => {
      // What the list accepts is the store's rule (query-access.ts), never a second copy here.
      const reader = queryReader(spec, role.name, role.granted.has(spec.permissions.descifrar))
      const campos = spec.fields.flatMap((f) => fieldView(spec, role, reader, f.name) ?? [])
      const workflow = workflowView(spec, role)
      const motivo = Object.entries(spec.def.motivoRequired ?? {})
        .filter(([, roles]) => roles?.includes(role.name) === true)
        .map(([action]) => action)
      return {
        nombre: spec.name,
        descripcion: spec.def.description ?? spec.name,
        prefijo: spec.prefix,
        acciones: ACTIONS.filter((a) => role.granted.has(spec.permissions[a])),
        busqueda: spec.fields.some((f) => searchableFor(f, reader)),
        motivo,
        campos,
        ...(workflow === undefined ? {} : { workflow }),
      }
    })
}
