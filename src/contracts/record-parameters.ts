// The path and header parameters of a module's routes: the record's id (D8), a past version
// (D33) and the ETag conditions (D13). The list's query parameters are list-parameters.ts.
import type { ModuleSpec } from '../compile/types.js'
import { exampleId } from './examples.js'
import type { OpenApiObject } from './route-contract.js'

export const idParameter = (spec: ModuleSpec): OpenApiObject => ({
  name: 'id',
  in: 'path',
  required: true,
  description: `Identificador \`${spec.prefix}-AAAA-NNNNN\` (D8).`,
  schema: { type: 'string', pattern: `^${spec.prefix}-[0-9]{4}-[0-9]{5,}$` },
  example: exampleId(spec.prefix),
})

export const versionParameter: OpenApiObject = {
  name: 'version',
  in: 'query',
  required: false,
  description:
    'El registro tal como era en esa versión (D33), p. ej. `1`; 404 `Versión del registro no encontrada` si no la tuvo o no se guardó. Vacío: la actual.',
  schema: { type: 'integer', minimum: 1 },
}

export const ifMatch: OpenApiObject = {
  name: 'If-Match',
  in: 'header',
  required: false,
  description: 'Versión esperada, `"<_version>"`, p. ej. `"1"` (D13). Vacío: sin comprobar la versión.',
  schema: { type: 'string' },
}

export const ifNoneMatch: OpenApiObject = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description:
    'ETag de la copia que ya tiene, `"<_version>"` (D13): 304 sin cuerpo si el registro sigue en esa versión.',
  schema: { type: 'string' },
}
