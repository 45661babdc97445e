// One record's retention (D41): GET /retencion/{module}/{id} (its state, or the tombstone of an
// erased record) and its legal hold, POST and DELETE /retencion/{module}/{id}/retener.
import type { JsonSchema } from '../compile/field-types.js'
import type { RetentionAction } from '../config/types.js'
import { MOTIVO_MAX_LENGTH } from '../errors.js'
import { HOLD_REFERENCE_MAX_LENGTH } from '../records/retention-request.js'
import { CHANGE_ERRORS, successEnvelope, type OpenApiObject, type RouteContract } from './route-contract.js'

export const STAMP = { type: 'string', description: 'AAAA-MM-DD HH:MM:SS, en la zona horaria del servicio' } as const
export const NULLABLE_STAMP = { ...STAMP, type: ['string', 'null'] } as const

/** What is left of an erased record (`suprimir`): never one of its values. */
const tombstoneSchema: JsonSchema = {
  type: 'object',
  required: ['module', 'id', 'erased_at', 'erased_by', 'motivo', 'basis'],
  properties: {
    module: { type: 'string' },
    id: { type: 'string' },
    erased_at: { ...STAMP, description: 'Cuándo se suprimió.' },
    erased_by: { type: 'string', description: 'Quién lo suprimió (id de la cuenta, o `cli:<nombre>`).' },
    motivo: { type: 'string', description: 'El motivo de la supresión.' },
    basis: {
      type: 'string',
      description: 'La base legal de conservación del módulo (`retention.basis`) en ese momento.',
    },
  },
}

/** A record's retention state, or its tombstone once erased (`erased_at` tells them apart). */
export const retentionAnswer = (stateSchema: JsonSchema): JsonSchema => ({ oneOf: [stateSchema, tombstoneSchema] })

/** A decision or a hold changes one record's retention state as an edit changes a record. */
export const RETENTION_ERRORS = CHANGE_ERRORS

export interface RecordRouteOptions {
  readonly path: string
  readonly permissions: Readonly<Record<RetentionAction, string>>
  /** The module and the id, in the path. */
  readonly parameters: readonly OpenApiObject[]
  readonly stateSchema: JsonSchema
  /** A module and an id of it for the examples. */
  readonly example: { readonly module: string; readonly id: string }
}

const MOTIVO = { type: 'string', minLength: 1, maxLength: MOTIVO_MAX_LENGTH } as const

export function recordRoutes({
  path,
  permissions,
  parameters,
  stateSchema,
  example,
}: RecordRouteOptions): Record<'status' | 'hold' | 'release', RouteContract> {
  const stateAnswer = {
    200: {
      description: 'El nuevo estado de conservación del registro (`hold`: la referencia en vigor, o null)',
      content: { schema: successEnvelope(stateSchema) },
    },
  }
  const holdNote =
    `La retención no impide conservar, bloquear ni desbloquear; solo \`suprimir\` (409 \`Registro retenido\`). ` +
    `Cada retención y cada levantamiento es una entrada de auditoría con su motivo y la referencia (\`criteria.referencia\`). ` +
    `404 si el registro no existe, está suprimido o fuera del ámbito del usuario.`
  return {
    status: {
      operationId: 'retention_status',
      method: 'GET',
      url: '/:module/:id',
      tags: [path],
      summary: 'Estado de conservación de un registro, o su lápida',
      description:
        `De un registro vivo, su estado de conservación (el mismo que responde una decisión, D41); de uno suprimido, su lápida: ` +
        `módulo, id, cuándo, quién, motivo y base legal, nunca un valor. Un rol con ámbito de registros en el módulo (\`access:\`) ` +
        `no ve lápidas: los valores que decidían su ámbito ya no existen. 404 si no existe, está fuera del ámbito o no hay lápida.` +
        `\n\n**Permiso necesario:** \`${permissions.ver}\`.`,
      security: 'bearer',
      permission: permissions.ver,
      parameters,
      responses: {
        200: {
          description: 'El estado de conservación, o la lápida (`erased_at`) de un registro suprimido',
          content: {
            schema: successEnvelope(retentionAnswer(stateSchema)),
            example: {
              success: true,
              data: {
                ...example,
                erased_at: '2026-11-27 10:30:00',
                erased_by: 'USR-2026-00002',
                motivo: 'Plazo máximo de conservación cumplido',
                basis: 'La base legal que declara el módulo (retention.basis)',
              },
            },
          },
        },
      },
      errors: ['BadRequest', 'Unauthorized', 'Forbidden', 'NotFound', 'TooManyRequests', 'InternalError'],
    },
    hold: {
      operationId: 'retention_hold',
      method: 'POST',
      url: '/:module/:id/retener',
      tags: [path],
      summary: 'Poner una retención legal a un registro',
      description:
        `Retiene el registro (D41) por una referencia, p. ej. el número de unas diligencias judiciales: mientras dure no se puede suprimir. ` +
        `409 \`El registro ya está retenido\` si ya tiene una. ${holdNote}` +
        `\n\n**Permiso necesario:** \`${permissions.decidir}\`.`,
      security: 'bearer',
      permission: permissions.decidir,
      parameters,
      body: {
        schema: {
          type: 'object',
          additionalProperties: false,
          required: ['referencia', 'motivo'],
          properties: {
            referencia: { type: 'string', minLength: 1, maxLength: HOLD_REFERENCE_MAX_LENGTH },
            motivo: MOTIVO,
          },
        },
        example: { referencia: 'DP 1234/2026 Juzgado de Instrucción n.º 2', motivo: 'Requerido por el juzgado' },
      },
      responses: stateAnswer,
      errors: RETENTION_ERRORS,
    },
    release: {
      operationId: 'retention_release',
      method: 'DELETE',
      url: '/:module/:id/retener',
      tags: [path],
      summary: 'Levantar la retención legal de un registro',
      description:
        `Levanta la retención del registro (D41); el cuerpo lleva el motivo. 409 \`El registro no está retenido\` si no tiene ninguna. ${holdNote}` +
        `\n\n**Permiso necesario:** \`${permissions.decidir}\`.`,
      security: 'bearer',
      permission: permissions.decidir,
      parameters,
      body: {
        schema: { type: 'object', additionalProperties: false, required: ['motivo'], properties: { motivo: MOTIVO } },
        example: { motivo: 'Sobreseimiento firme' },
      },
      responses: stateAnswer,
      errors: RETENTION_ERRORS,
    },
  }
}
