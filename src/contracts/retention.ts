// GET /retencion and POST /retencion/{module}/{id} (D41): the queue of records due for review
// and the decisions on them, for holders of `retencion.ver` and `retencion.decidir`; one record's
// state or tombstone and its legal holds are retention-record.ts's.
import type { JsonSchema } from '../compile/field-types.js'
import { MOTIVO_MAX_LENGTH } from '../errors.js'
import type { ServiceSpec } from '../compile/types.js'
import { RETENTION_DECISIONS, retainedModules } from '../records/retention-request.js'
import { exampleId } from './examples.js'
import {
  recordRoutes,
  retentionAnswer,
  RETENTION_ERRORS,
  STAMP,
  NULLABLE_STAMP,
  type RecordRouteOptions,
} from './retention-record.js'
import { ref, successEnvelope, type ContractFamily, type OpenApiObject } from './route-contract.js'

export type RetentionRoute = 'queue' | 'decide' | 'status' | 'hold' | 'release'

const REASON = { type: 'string', enum: ['revision', 'plazo_maximo'] } as const
const HOLD = {
  type: ['string', 'null'],
  description:
    'La referencia de la retención legal en vigor (`retener`), p. ej. un número de diligencias; null: ninguna.',
} as const

const dueRecordSchema: JsonSchema = {
  type: 'object',
  required: ['module', 'id', 'due_since', 'reason', 'hold'],
  properties: { module: { type: 'string' }, id: { type: 'string' }, due_since: STAMP, reason: REASON, hold: HOLD },
}

/** A record's retention state after a decision. */
export const stateSchema: JsonSchema = {
  type: 'object',
  required: [
    'module',
    'id',
    'from',
    'reviewed_at',
    'reviewed_by',
    'next_due',
    'keep_until',
    'blocked_at',
    'blocked_by',
    'due_since',
    'reason',
    'hold',
  ],
  properties: {
    module: { type: 'string' },
    id: { type: 'string' },
    from: { ...NULLABLE_STAMP, description: 'Donde empieza su plazo (`retention.from`); null: aún no empieza.' },
    reviewed_at: { ...NULLABLE_STAMP, description: 'La última revisión que lo conservó.' },
    reviewed_by: { type: ['string', 'null'], description: 'Quién la hizo.' },
    next_due: { ...NULLABLE_STAMP, description: 'Cuándo vence de nuevo si no se decide nada.' },
    keep_until: { ...NULLABLE_STAMP, description: '`from` + `keep_at_most`; null sin plazo máximo.' },
    blocked_at: { ...NULLABLE_STAMP, description: 'Bloqueado desde (`bloquear`); null: no lo está.' },
    blocked_by: { type: ['string', 'null'], description: 'Quién lo bloqueó.' },
    due_since: {
      ...NULLABLE_STAMP,
      description: 'Si sigue vencido (el plazo máximo no lo alarga una revisión; uno bloqueado no lo está).',
    },
    reason: { ...REASON, type: ['string', 'null'], enum: ['revision', 'plazo_maximo', null] },
    hold: HOLD,
  },
}

export function retentionContracts(service: ServiceSpec): ContractFamily<RetentionRoute> {
  const { path, permissions } = service.retention
  const modules = retainedModules(service).map((m) => m.name)
  const first = retainedModules(service)[0]
  const id = exampleId(first?.prefix ?? 'REG')
  const moduleParameter: OpenApiObject = {
    name: 'module',
    in: 'path',
    required: true,
    description: 'Un módulo que declara `retention:` en modules.yaml.',
    schema: { type: 'string', enum: modules },
  }
  const idParameter: OpenApiObject = {
    name: 'id',
    in: 'path',
    required: true,
    description: 'Identificador del registro (D8).',
    schema: { type: 'string' },
  }
  const options: RecordRouteOptions = {
    path,
    permissions,
    parameters: [moduleParameter, idParameter],
    stateSchema,
    example: { module: first?.name ?? path, id },
  }
  return {
    prefix: `/${path}`,
    routes: {
      queue: {
        operationId: 'retention_queue',
        method: 'GET',
        url: '/',
        tags: [path],
        summary: 'Registros pendientes de revisión de conservación',
        description:
          `Los registros vencidos (D41) que el usuario puede ver según el ámbito de su rol, del que lleva más tiempo vencido al que menos: ` +
          `\`revision\` cuando pasó \`review_every\` desde \`from\` o desde su última revisión, \`plazo_maximo\` cuando pasó \`keep_at_most\` desde \`from\`. ` +
          `No muestra valores de los registros.\n\n**Permiso necesario:** \`${permissions.ver}\`.`,
        security: 'bearer',
        permission: permissions.ver,
        parameters: [
          ref('parameters', 'limit'),
          ref('parameters', 'offset'),
          {
            name: 'module',
            in: 'query',
            required: false,
            description: 'Solo los de este módulo; 400 si no existe o no declara `retention:`.',
            schema: { type: 'string', enum: modules },
          },
        ],
        responses: {
          200: {
            description: 'Una página de la cola',
            content: {
              schema: successEnvelope({
                type: 'object',
                required: ['entries', 'total'],
                properties: { entries: { type: 'array', items: dueRecordSchema }, total: { type: 'integer' } },
              }),
              example: {
                success: true,
                data: {
                  entries: [
                    {
                      module: first?.name ?? path,
                      id,
                      due_since: '2026-01-15 10:30:00',
                      reason: 'revision',
                      hold: null,
                    },
                  ],
                  total: 1,
                },
              },
            },
          },
        },
        errors: ['BadRequest', 'Unauthorized', 'Forbidden', 'TooManyRequests', 'InternalError'],
      },
      decide: {
        operationId: 'retention_decide',
        method: 'POST',
        url: '/:module/:id',
        tags: [path],
        summary: 'Decidir sobre la conservación de un registro',
        description:
          `\`conservar\`: el registro sigue siendo necesario; su próxima revisión se cuenta desde ahora (D41). ` +
          `\`bloquear\`: queda bloqueado y sale de la cola; \`desbloquear\` levanta el bloqueo. ` +
          `\`suprimir\`: borra el registro (vivo o eliminado), sus versiones y sus entradas en los índices de búsqueda, en una transacción, ` +
          `y deja una lápida (módulo, id, cuándo, quién, motivo, base legal) que es la respuesta; después el registro es 404 para todos. ` +
          `El motivo es obligatorio y queda en la entrada de auditoría de la decisión. 404 si el registro no existe o está fuera del ámbito del usuario; ` +
          `409 \`El registro está bloqueado\` (conservar o bloquear uno bloqueado), \`El registro no está bloqueado\` (desbloquear uno que no lo está), ` +
          `\`Registro retenido\` (suprimir uno con retención legal; \`details\` nombra la referencia) o ` +
          `\`El registro está referenciado por otros registros y no se puede eliminar\` (suprimir uno que registros vivos referencian con \`on_delete: restrict\`, D35).` +
          `\n\n**Permiso necesario:** \`${permissions.decidir}\`.`,
        security: 'bearer',
        permission: permissions.decidir,
        parameters: [moduleParameter, idParameter],
        body: {
          schema: {
            type: 'object',
            additionalProperties: false,
            required: ['decision', 'motivo'],
            properties: {
              decision: { type: 'string', enum: [...RETENTION_DECISIONS] },
              motivo: { type: 'string', minLength: 1, maxLength: MOTIVO_MAX_LENGTH },
            },
          },
          example: { decision: 'conservar', motivo: 'Diligencias abiertas en el juzgado' },
        },
        responses: {
          200: {
            description:
              'La decisión aplicada: el nuevo estado de conservación del registro, o su lápida tras `suprimir`',
            content: { schema: successEnvelope(retentionAnswer(stateSchema)) },
          },
        },
        errors: RETENTION_ERRORS,
      },
      ...recordRoutes(options),
    },
  }
}
