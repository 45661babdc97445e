// The components of one module: its record, and the bodies the service accepts for a create and
// an update, widened from the validating schemas to what the service accepts and ignores (D7, D15).
import type { JsonSchema } from '../compile/field-types.js'
import { INTEGRITY, MASK, META } from '../compile/metadata.js'
import type { ModuleSpec } from '../compile/types.js'
import { moduleComponentNames } from '../contracts/component-names.js'

/** Metadata a body may carry back from a read: accepted and ignored (D7). */
const IGNORED_META: Readonly<Record<string, JsonSchema>> = Object.fromEntries(
  [...Object.values(META), INTEGRITY.marker, INTEGRITY.fields].map((key) => [
    key,
    { description: 'Metadato del registro leído: se acepta y se ignora (D7).' },
  ]),
)

/**
 * A body schema as the service accepts it: the validating schema, plus what the service drops
 * before validating (D7, D15), so a client may send back what it read. The
 * metadata are named one by one rather than as a `^_` pattern, so that generated types keep
 * `additionalProperties: false` and a misspelled field does not compile (a typo is a 400, D7).
 */
function accepted(spec: ModuleSpec, schema: JsonSchema): JsonSchema {
  const properties = { ...(schema['properties'] as Record<string, JsonSchema>) }
  for (const field of spec.encryptedFields) {
    const own = properties[field.name]
    if (own !== undefined)
      properties[field.name] = {
        anyOf: [own, { const: MASK }],
        description: `'${MASK}' (el valor enmascarado que se leyó) deja el valor guardado sin cambios (D15).`,
      }
  }
  return {
    ...schema,
    description:
      'Un campo que el módulo no tiene: 400 `Datos inválidos` (D7). Los metadatos (claves que empiezan por `_`) ' +
      'se aceptan y se ignoran; los de un registro leído están listados.',
    properties: { ...properties, ...IGNORED_META },
    additionalProperties: false,
  }
}

/** The three schemas of a module: the record, and the bodies the service accepts. */
export function moduleSchemas(spec: ModuleSpec): Record<string, JsonSchema> {
  const names = moduleComponentNames(spec)
  return {
    [names.record]: {
      ...spec.schemas.record,
      ...(spec.def.description === undefined ? {} : { description: spec.def.description }),
    },
    [names.create]: accepted(spec, spec.schemas.create),
    [names.update]: accepted(spec, spec.schemas.update),
  }
}
