// The paths that are not a module's: session (API reference 4.1-4.3), audit trail (D25), and the
// extra endpoints of D3 (health, this document, the docs page).
import { AUDIT_CHAIN_COLUMNS } from '../compile/audit-columns.js'
import { AUDIT_ACTIONS } from '../records/audit-query.js'
import type { JsonSchema } from '../compile/field-types.js'
import type { ServiceSpec } from '../compile/types.js'
import { ref, successEnvelope, type OpenApiObject } from '../contracts/route-contract.js'
import { commonHeaders, errorRefs } from './responses.js'

type Paths = Record<string, Record<string, OpenApiObject>>

const json = (schema: OpenApiObject | JsonSchema, example?: unknown): OpenApiObject => ({
  'application/json': { schema, ...(example === undefined ? {} : { example }) },
})

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

function auditPaths(service: ServiceSpec): Paths {
  const time = (bound: string) =>
    `Entradas ${bound}: milisegundos desde 1970, o \`AAAA-MM-DD HH:MM:SS\` (también \`AAAA-MM-DD\`, todo el día) ` +
    `en la zona horaria del servicio (${service.service.timezone}), como se guarda \`at\`.`
  const parameter = (name: string, description: string, schema: JsonSchema = { type: 'string' }) => ({
    name,
    in: 'query',
    required: false,
    schema,
    description,
  })
  const filters = [
    parameter('desde', time('desde ese instante (incluido)')),
    parameter('hasta', time('hasta ese instante (incluido)')),
    parameter(
      'usuario',
      'Quien actuó: el `_id` de la cuenta, su nombre de usuario, o `cli:<nombre>` (línea de órdenes).',
    ),
    parameter('modulo', 'Filtro exacto por módulo.'),
    parameter(
      'registro',
      'Un `_id` de registro: las entradas de ese registro y las lecturas cuya respuesta lo incluía (`record_ids`).',
    ),
    parameter('accion', 'Filtro exacto por acción.', { type: 'string', enum: AUDIT_ACTIONS }),
    parameter(
      'dni',
      'Quién consultó a esta persona: las entradas que crearon, leyeron, devolvieron o buscaron un registro con este valor en un campo cifrado llamado `dni`, `nif`, `*_dni` o `*_nif` (por su índice ciego, registros eliminados incluidos).',
    ),
    parameter('campo', 'Como `dni`, con otro campo cifrado: `campo` o `modulo.campo`; se usa con `valor`.'),
    parameter('valor', 'El valor buscado en `campo`, exacto.'),
  ]
  return {
    [`/${service.audit.path}`]: {
      get: {
        operationId: 'audit_trail',
        tags: [service.audit.path],
        summary: 'Registro de auditoría',
        description: `Entradas de la cadena de auditoría, de la más antigua a la más reciente (D25), filtradas por tiempo, usuario, módulo, registro, acción o persona (D34); los filtros se combinan.\n\n**Permiso necesario:** \`${service.audit.permission}\`.`,
        'x-permission': service.audit.permission,
        security: [{ bearer: [] }],
        parameters: [ref('parameters', 'limit'), ref('parameters', 'offset'), ...filters],
        responses: {
          200: {
            description: 'Una página de entradas',
            headers: commonHeaders(),
            content: json(
              successEnvelope({
                type: 'object',
                required: ['entries', 'total', 'limit', 'offset'],
                properties: {
                  entries: { type: 'array', items: ref('schemas', 'EntradaAuditoria') },
                  total: { type: 'integer' },
                  limit: { type: 'integer' },
                  offset: { type: 'integer' },
                },
              }),
            ),
          },
          ...errorRefs(['BadRequest', 'Unauthorized', 'Forbidden', 'TooManyRequests', 'InternalError']),
        },
      },
    },
  }
}

/** The live feed (issue #16 item 5): an SSE stream of record writes, and its tickets for EventSource. */
function eventPaths(service: ServiceSpec): Paths {
  const modules = service.modules.map((m) => m.name)
  // The example event: the first module and two of its fields, whatever modules.yaml declares.
  const first = service.modules[0]
  const exampleId = `${first?.prefix ?? 'REG'}-2026-00001`
  const exampleEvent = JSON.stringify({
    modulo: first?.name ?? 'modulo',
    id: exampleId,
    accion: 'crear',
    version: 1,
    campos: (first?.fields ?? []).slice(0, 2).map((f) => f.name),
    registro: { _id: exampleId },
  })
  return {
    '/eventos': {
      get: {
        operationId: 'live_events',
        tags: ['eventos'],
        summary: 'Flujo de cambios en vivo (Server-Sent Events)',
        description:
          'Un evento por alta, edición, movimiento de estado o eliminación en los módulos pedidos, con `id:` igual al ' +
          '`seq` de la auditoría y el registro tal como lo devolvería un GET de quien escucha (ámbito, campos ocultos, ' +
          'enmascarado; un evento que descifra queda registrado como consulta). Eventos: `crear`, `editar`, `mover`, ' +
          '`eliminar` y `fuera` (el registro deja el ámbito o el filtro: solo su id); `recargar` si el punto de ' +
          'reanudación es demasiado antiguo; `cerrado` cuando el token deja de valer o falta el permiso. Líneas de ' +
          'comentario cada 15 s. Reanuda con la cabecera `Last-Event-ID` o `desde`. Los demás parámetros son filtros ' +
          'de la lista de cada módulo (D11). Con token bearer o, desde un `EventSource`, con un vale de ' +
          '`POST /eventos/ticket`.\n\n**Permiso necesario:** `{modulo}.ver` de cada módulo.',
        security: [{ bearer: [] }, { ticket: [] }],
        parameters: [
          {
            name: 'modulos',
            in: 'query',
            required: false,
            description: 'Módulos separados por comas; sin él, todos los que el rol puede ver.',
            schema: { type: 'string' },
            example: modules[0],
          },
          {
            name: 'desde',
            in: 'query',
            required: false,
            description: 'Reanuda tras este `seq` (como `Last-Event-ID`).',
            schema: { type: 'integer', minimum: 0 },
          },
          {
            name: 'Last-Event-ID',
            in: 'header',
            required: false,
            description: 'El último `id:` recibido; lo envía `EventSource` al reconectar.',
            schema: { type: 'string' },
          },
        ],
        responses: {
          200: {
            description: 'El flujo de eventos, abierto hasta que el cliente lo cierra',
            headers: commonHeaders(),
            content: {
              'text/event-stream': {
                schema: { type: 'string' },
                example: `id: 42\nevent: crear\ndata: ${exampleEvent}\n\n`,
              },
            },
          },
          ...errorRefs(['BadRequest', 'Unauthorized', 'Forbidden', 'TooManyRequests', 'InternalError']),
        },
      },
    },
    '/eventos/ticket': {
      post: {
        operationId: 'live_events_ticket',
        tags: ['eventos'],
        summary: 'Vale de un solo uso para abrir el flujo desde un navegador',
        description:
          'Un `EventSource` no puede enviar la cabecera `Authorization`, y un token en la URL acaba en los registros: ' +
          'este vale, válido 30 segundos y un solo uso, va en `?ticket=` y queda ligado al token que lo pidió.',
        security: [{ bearer: [] }],
        responses: {
          201: {
            description: 'Un vale',
            headers: commonHeaders(),
            content: json(
              successEnvelope({
                type: 'object',
                required: ['ticket', 'caduca'],
                properties: {
                  ticket: { type: 'string' },
                  caduca: { type: 'string', description: 'AAAA-MM-DD HH:MM:SS en la zona horaria del servicio (D9)' },
                },
              }),
              { success: true, data: { ticket: 'q3Vb0…', caduca: '2026-11-23 11:00:30' } },
            ),
          },
          ...errorRefs(['Unauthorized', 'TooManyRequests', 'InternalError']),
        },
      },
    },
  }
}

export function servicePaths(service: ServiceSpec): Paths {
  return { ...auditPaths(service), ...eventPaths(service) }
}
