// What GET /{module}/{id}/historial answers (D25, D33): audit entries, those of a write with the
// values it changed, masked as the record is.
import type { JsonSchema } from '../compile/field-types.js'
import type { ModuleSpec } from '../compile/types.js'
import { AUDIT_ENTRY_COMPONENT } from './audit.js'
import { exampleId } from './examples.js'
import { ref } from './route-contract.js'

/** What a write changed in one field, as the reader may see it (masked, D15). */
const changeSchema: JsonSchema = {
  type: 'object',
  required: ['old', 'new'],
  properties: {
    old: { description: 'Valor anterior (`null` al crear); `***` si el campo es cifrado y no se tiene descifrar.' },
    new: { description: 'Valor nuevo.' },
  },
}

/** One history entry: the audit chain entry, and for a write the values it changed (D33). */
export const historyEntrySchema: JsonSchema = {
  allOf: [
    ref('schemas', AUDIT_ENTRY_COMPONENT),
    {
      type: 'object',
      properties: {
        changes: {
          type: 'object',
          description:
            'Solo en crear, importar, editar y eliminar: por campo cambiado, su valor anterior y nuevo. Sin los campos que el rol no puede leer.',
          additionalProperties: changeSchema,
        },
      },
    },
  ],
}

/** An entry of a write in a record's history, with what it changed. */
export function historyExample(spec: ModuleSpec): Record<string, unknown> {
  const field = spec.fields[0]?.name ?? 'campo'
  return {
    seq: 12,
    at: '2026-11-23 10:15:02.114',
    user_id: 'USR-2026-00001',
    action: 'editar',
    module: spec.name,
    record_id: exampleId(spec.prefix),
    version: 2,
    record_hash: 'c0ffee…',
    fields: [field],
    prev_hash: '5eed…',
    hash: 'beef…',
    changes: { [field]: { old: 'valor anterior', new: 'valor nuevo' } },
  }
}
