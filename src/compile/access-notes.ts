// The access rules of a field as a consumer reads them: who cannot read or write it,
// defaults from the user, read-only states and the state field's workflow. Compiled into the
// descriptions of the very schemas that validate requests, so the OpenAPI document shows them.
import type { JsonSchema } from './field-types.js'
import type { AccessSpec, WorkflowSpec } from './types.js'

/** The workflow of the state field, as a consumer reads it. */
function workflowNote(workflow: WorkflowSpec | undefined): string | undefined {
  if (workflow === undefined) return undefined
  const moves = workflow.states.map((state) => {
    if (workflow.final.has(state)) return `${state} (final)`
    const targets = [...(workflow.moves.get(state) ?? [])].map(
      ([to, move]) =>
        `${to}${move.roles === undefined ? '' : ` [${[...move.roles].join(', ')}]`}${move.requires.length === 0 ? '' : ` (requiere ${move.requires.join(', ')})`}`,
    )
    return `${state} → ${targets.length === 0 ? '—' : targets.join(', ')}`
  })
  return (
    `Workflow: se crea en ${workflow.createIn.join(', ')}; ${moves.join('; ')}. ` +
    'Un cambio no permitido: 409 `Transición de estado no permitida` con los estados siguientes permitidos.' +
    (workflow.final.size === 0
      ? ''
      : ` Un registro en estado final es de solo lectura: PUT y DELETE 409 \`Registro no modificable en su estado final\`${workflow.finalEditableBy.size === 0 ? '' : ` salvo para ${[...workflow.finalEditableBy].join(', ')}`}.`)
  )
}

/** Notes per field name. */
export function fieldNotes(
  access: ReadonlyMap<string, AccessSpec>,
  workflow: WorkflowSpec | undefined,
): Map<string, string[]> {
  const notes = new Map<string, string[]>()
  const add = (field: string, note: string) => notes.set(field, [...(notes.get(field) ?? []), note])
  for (const rules of access.values()) {
    for (const field of rules.cannotRead) add(field, `El rol ${rules.role} no lo lee (ausente de sus respuestas).`)
    for (const field of rules.cannotWrite) add(field, `El rol ${rules.role} no lo escribe (403).`)
    for (const d of rules.defaults)
      add(
        d.field,
        `Para el rol ${rules.role}, al crear sin valor toma ${'user' in d.value ? `el ${d.value.user} del usuario` : JSON.stringify(d.value.literal)}.`,
      )
  }
  if (workflow !== undefined) {
    const note = workflowNote(workflow)
    if (note !== undefined) add(workflow.field, note)
    const lockedIn = new Map<string, string[]>()
    for (const [state, fields] of workflow.readonlyIn)
      for (const f of fields) lockedIn.set(f, [...(lockedIn.get(f) ?? []), state])
    for (const [field, states] of lockedIn) add(field, `De solo lectura en los estados ${states.join(', ')} (409).`)
    const heldIn = new Map<string, string[]>()
    for (const [state, fields] of workflow.requiredIn)
      for (const f of fields) heldIn.set(f, [...(heldIn.get(f) ?? []), state])
    for (const [field, states] of heldIn) add(field, `No se puede vaciar en los estados ${states.join(', ')} (400).`)
  }
  return notes
}

/** A copy of an object schema whose properties carry the notes in their descriptions. */
export function withFieldNotes(schema: JsonSchema, notes: ReadonlyMap<string, readonly string[]>): JsonSchema {
  const properties = schema['properties'] as Record<string, JsonSchema> | undefined
  if (properties === undefined || notes.size === 0) return schema
  const annotated = Object.fromEntries(
    Object.entries(properties).map(([name, property]) => {
      const extra = notes.get(name)
      if (extra === undefined) return [name, property]
      const description = [property['description'], ...extra].filter((d) => typeof d === 'string' && d !== '').join(' ')
      return [name, { ...property, description }]
    }),
  )
  return { ...schema, properties: annotated }
}
