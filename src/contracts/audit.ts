// GET /{audit_path} (D25, D34): the audit trail, for holders of `{audit_path}.ver`; and the
// schema of one entry of the chain (D18), which the history of a record lists too.
import { AUDIT_CHAIN_COLUMNS } from '../compile/audit-columns.js'
import type { JsonSchema } from '../compile/field-types.js'
import type { ServiceSpec } from '../compile/types.js'
import { AUDIT_ACTIONS, AUDIT_PARAMETERS } from '../records/audit-query.js'
import { ref, successEnvelope, type ContractFamily, type OpenApiObject } from './route-contract.js'

/** The component an audit entry is published as. */
export const AUDIT_ENTRY_COMPONENT = 'EntradaAuditoria'

/** One entry of the audit chain (D18), as /{module}/{id}/historial and the audit trail list it. */
export const auditEntrySchema: JsonSchema = {
  type: 'object',
  required: [...AUDIT_CHAIN_COLUMNS],
  properties: {
    seq: { type: 'integer' },
    at: { type: 'string', description: 'AAAA-MM-DD HH:MM:SS.mmm' },
    user_id: { type: ['string', 'null'] },
    action: { type: 'string', enum: AUDIT_ACTIONS },
    module: { type: ['string', 'null'] },
    record_id: { type: ['string', 'null'] },
    version: { type: ['integer', 'null'] },
    record_hash: { type: ['string', 'null'] },
    fields: { type: 'array', items: { type: 'string' }, description: 'Nombres de los campos, nunca sus valores.' },
    prev_hash: { type: 'string' },
    hash: { type: 'string' },
  },
}

type AuditFilter = Exclude<(typeof AUDIT_PARAMETERS)[number], 'limit' | 'offset'>

/** Every parameter the audit query parser accepts, documented: one missing here does not compile. */
function auditParameters(service: ServiceSpec): OpenApiObject[] {
  const time = (bound: string) =>
    `Entradas ${bound}: milisegundos desde 1970, o \`AAAA-MM-DD HH:MM:SS\` (también \`AAAA-MM-DD\`, todo el día) ` +
    `en la zona horaria del servicio (${service.service.timezone}), como se guarda \`at\`.`
  const filters: Readonly<Record<AuditFilter, { readonly description: string; readonly schema?: JsonSchema }>> = {
    desde: { description: time('desde ese instante (incluido)') },
    hasta: { description: time('hasta ese instante (incluido)') },
    usuario: {
      description: 'Quien actuó: el `_id` de la cuenta, su nombre de usuario, o `cli:<nombre>` (línea de órdenes).',
    },
    modulo: { description: 'Filtro exacto por módulo.' },
    registro: {
      description:
        'Un `_id` de registro: las entradas de ese registro y las lecturas cuya respuesta lo incluía (`record_ids`).',
    },
    accion: { description: 'Filtro exacto por acción.', schema: { type: 'string', enum: AUDIT_ACTIONS } },
    dni: {
      description:
        'Quién consultó a esta persona: las entradas que crearon, leyeron, devolvieron o buscaron un registro con este valor en un campo cifrado llamado `dni`, `nif`, `*_dni` o `*_nif` (por su índice ciego, registros eliminados incluidos).',
    },
    campo: { description: 'Como `dni`, con otro campo cifrado: `campo` o `modulo.campo`; se usa con `valor`.' },
    valor: { description: 'El valor buscado en `campo`, exacto.' },
  }
  return AUDIT_PARAMETERS.map((name) =>
    name === 'limit' || name === 'offset'
      ? ref('parameters', name)
      : {
          name,
          in: 'query',
          required: false,
          schema: filters[name].schema ?? { type: 'string' },
          description: filters[name].description,
        },
  )
}

export function auditContracts(service: ServiceSpec): ContractFamily<'trail'> {
  const { path, permission } = service.audit
  return {
    prefix: `/${path}`,
    routes: {
      trail: {
        operationId: 'audit_trail',
        method: 'GET',
        url: '/',
        tags: [path],
        summary: 'Registro de auditoría',
        description: `Entradas de la cadena de auditoría, de la más antigua a la más reciente (D25), filtradas por tiempo, usuario, módulo, registro, acción o persona (D34); los filtros se combinan.\n\n**Permiso necesario:** \`${permission}\`.`,
        security: 'bearer',
        permission,
        parameters: auditParameters(service),
        responses: {
          200: {
            description: 'Una página de entradas',
            content: {
              schema: successEnvelope({
                type: 'object',
                required: ['entries', 'total', 'limit', 'offset'],
                properties: {
                  entries: { type: 'array', items: ref('schemas', AUDIT_ENTRY_COMPONENT) },
                  total: { type: 'integer' },
                  limit: { type: 'integer' },
                  offset: { type: 'integer' },
                },
              }),
            },
          },
        },
        errors: ['BadRequest', 'Unauthorized', 'Forbidden', 'TooManyRequests', 'InternalError'],
      },
    },
  }
}
