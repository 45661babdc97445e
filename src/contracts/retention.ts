// GET /retencion and POST /retencion/{module}/{id} (D41): the queue of records due for review
// and the decisions on them, for holders of `retencion.ver` and `retencion.decidir`.
import type { JsonSchema } from '../compile/field-types.js'
import { MOTIVO_MAX_LENGTH } from '../errors.js'
import type { ServiceSpec } from '../compile/types.js'
import { RETENTION_DECISIONS, retainedModules } from '../records/retention-request.js'
import { exampleId } from './examples.js'
import { ref, successEnvelope, type ContractFamily, type OpenApiObject } from './route-contract.js'

export type RetentionRoute = 'queue' | 'decide'

const STAMP = { type: 'string', description: 'AAAA-MM-DD HH:MM:SS, en la zona horaria del servicio' } as const
const NULLABLE_STAMP = { ...STAMP, type: ['string', 'null'] } as const
const REASON = { type: 'string', enum: ['revision', 'plazo_maximo'] } as const
const HOLD = {
  type: ['string', 'null'],
  description: 'La referencia de la retención legal que lo protege (por venir); hoy siempre null.',
} as const

const dueRecordSchema: JsonSchema = {
  type: 'object',
  required: ['module', 'id', 'due_since', 'reason', 'hold'],
  properties: { module: { type: 'string' }, id: { type: 'string' }, due_since: STAMP, reason: REASON, hold: HOLD },
}

/** A record's retention state after a decision. */
const stateSchema: JsonSchema = {
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
          `\`bloquear\`: queda bloqueado y sale de la cola (por ahora se registra, aún no se oculta); \`desbloquear\` levanta el bloqueo. ` +
          `El motivo es obligatorio y queda en la entrada de auditoría de la decisión. 404 si el registro no existe o está fuera del ámbito del usuario; ` +
          `409 \`El registro está bloqueado\` (conservar o bloquear uno bloqueado) o \`El registro no está bloqueado\` (desbloquear uno que no lo está).` +
          `\n\n**Permiso necesario:** \`${permissions.decidir}\`.`,
        security: 'bearer',
        permission: permissions.decidir,
        parameters: [
          moduleParameter,
          {
            name: 'id',
            in: 'path',
            required: true,
            description: 'Identificador del registro (D8).',
            schema: { type: 'string' },
          },
        ],
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
            description: 'La decisión aplicada y el nuevo estado de conservación del registro',
            content: { schema: successEnvelope(stateSchema) },
          },
        },
        errors: [
          'BadRequest',
          'Unauthorized',
          'Forbidden',
          'NotFound',
          'Conflict',
          'TooLarge',
          'UnsupportedMediaType',
          'TooManyRequests',
          'InternalError',
        ],
      },
    },
  }
}
