// GET /interesados (D41): for a person's identifier, the records of every module whose
// encrypted fields hold it (module, id, field), for holders of `interesados.ver`.
import type { JsonSchema } from '../compile/field-types.js'
import type { ServiceSpec } from '../compile/types.js'
import { MOTIVO_MAX_LENGTH } from '../errors.js'
import { SUBJECT_VALUE_MAX_LENGTH } from '../records/subject-query.js'
import { exampleId } from './examples.js'
import { ref, successEnvelope, type ContractFamily } from './route-contract.js'

export type SubjectRoute = 'find'

const matchSchema: JsonSchema = {
  type: 'object',
  required: ['module', 'id', 'field', 'deleted'],
  properties: {
    module: { type: 'string' },
    id: { type: 'string' },
    field: { type: 'string', description: 'El campo cifrado que guarda el identificador; nunca su valor.' },
    deleted: {
      type: 'boolean',
      description: 'Eliminado (D10) pero aún guardado: sus datos siguen ahí hasta que se supriman.',
    },
  },
}

export function subjectContracts(service: ServiceSpec): ContractFamily<SubjectRoute> {
  const { path, permission } = service.subjects
  const searched = service.modules.find((m) => m.fields.some((f) => f.blindIndexColumn !== undefined))
  const field = searched?.fields.find((f) => f.blindIndexColumn !== undefined)
  return {
    prefix: `/${path}`,
    routes: {
      find: {
        operationId: 'subjects_find',
        method: 'GET',
        url: '/',
        tags: [path],
        summary: 'Registros que guardan un identificador de una persona',
        description:
          `Qué se guarda de una persona (D41): los registros de todos los módulos con el valor exacto de \`valor\` en un campo cifrado, ` +
          `hallados por su índice ciego con cada clave configurada (también los valores aún no rotados), los eliminados incluidos (\`deleted\`). ` +
          `Devuelve módulo, id y campo, nunca valores, por lo que no necesita \`{módulo}.ver\`; sí se aplica el ámbito del rol (D26) ` +
          `y no se busca en los campos que el rol no puede leer (D27). Exige \`X-Motivo\`. Cada registro devuelto queda como una consulta ` +
          `(D29) con quién, cuándo, el motivo y los campos; el identificador solo como sus índices ciegos, nunca en claro.` +
          `\n\n**Permiso necesario:** \`${permission}\`.`,
        security: 'bearer',
        permission,
        parameters: [
          {
            name: 'valor',
            in: 'query',
            required: true,
            description:
              'El identificador de la persona (DNI, NIE, teléfono...), exacto: ni mayúsculas ni espacios se igualan.',
            schema: { type: 'string', minLength: 1, maxLength: SUBJECT_VALUE_MAX_LENGTH },
          },
          ref('parameters', 'limit'),
          ref('parameters', 'offset'),
          {
            name: 'X-Motivo',
            in: 'header',
            required: true,
            description: 'Por qué se busca a la persona (D29); 400 sin él.',
            schema: { type: 'string', minLength: 1, maxLength: MOTIVO_MAX_LENGTH },
          },
        ],
        responses: {
          200: {
            description: 'Una página de los campos que guardan el identificador',
            content: {
              schema: successEnvelope({
                type: 'object',
                required: ['entries', 'total', 'limit', 'offset'],
                properties: {
                  entries: { type: 'array', items: matchSchema },
                  total: { type: 'integer' },
                  limit: { type: 'integer' },
                  offset: { type: 'integer' },
                },
              }),
              example: {
                success: true,
                data: {
                  entries: [
                    {
                      module: searched?.name ?? path,
                      id: exampleId(searched?.prefix ?? 'REG'),
                      field: field?.name ?? 'dni',
                      deleted: false,
                    },
                  ],
                  total: 1,
                  limit: service.service.list.defaultLimit,
                  offset: 0,
                },
              },
            },
          },
        },
        errors: ['BadRequest', 'Unauthorized', 'Forbidden', 'TooManyRequests', 'Unavailable', 'InternalError'],
      },
    },
  }
}
