// Example values of a module, derived from its field definitions: what the docs page pre-fills.
// Each field type owns its example (compile/field-types/). Fixed dates, no clock: the document
// is the same on every build.
import { FIELD_TYPES } from '../compile/field-types.js'
import { META } from '../compile/metadata.js'
import type { FieldSpec, ModuleSpec } from '../compile/types.js'

const EXAMPLE_YEAR = '2026'

/** A value the field accepts, or undefined when none can be derived. */
export function exampleValue(field: FieldSpec): unknown {
  if (field.def.enum !== undefined) return field.def.enum[0]
  const type = FIELD_TYPES[field.def.type]
  if (field.def.examples !== undefined && field.def.examples.length > 0 && type.textExamples)
    return field.def.examples[0]
  return type.example(field)
}

/** A create body with every field an example can be derived for (required ones included). */
export function createExample(spec: ModuleSpec): Record<string, unknown> {
  const values: Record<string, unknown> = {}
  // A file field is written by its upload route only (D43).
  for (const field of spec.fields.filter((f) => f.uploaded !== true)) {
    const value = exampleValue(field)
    if (value !== undefined) values[field.name] = value
  }
  return values
}

/** An update body: the state field moved on, or the first optional field. */
export function updateExample(spec: ModuleSpec): Record<string, unknown> {
  const state = spec.stateField === undefined ? undefined : spec.fieldsByName.get(spec.stateField)
  const states = state?.def.enum
  if (state !== undefined && states !== undefined && states.length > 1) return { [state.name]: states[1] }
  const field =
    spec.fields.find((f) => !f.def.required && f.uploaded !== true && exampleValue(f) !== undefined) ?? spec.fields[0]
  return field === undefined ? {} : { [field.name]: exampleValue(field) }
}

/** The record the service answers with after `actorId` creates `createExample(spec)`. */
export const exampleId = (prefix: string): string => `${prefix}-${EXAMPLE_YEAR}-00001`

export function recordExample(spec: ModuleSpec, actorId: string): Record<string, unknown> {
  const body = createExample(spec)
  const fields = Object.fromEntries(spec.fields.filter((f) => !f.writeOnly).map((f) => [f.name, body[f.name] ?? null]))
  return {
    [META.id]: exampleId(spec.prefix),
    ...fields,
    [META.created]: `${EXAMPLE_YEAR}-01-15 10:31:02`,
    [META.createdBy]: actorId,
    [META.modified]: `${EXAMPLE_YEAR}-01-15 10:31:02`,
    [META.modifiedBy]: actorId,
    [META.version]: 1,
    [META.hash]: '9f2c4b7e1a0d3c5b8e6f4a2d1c0b9e8f7a6d5c4b3a2e1f0d9c8b7a6e5f4d3c2b',
  }
}
