// The live feed (D36): an SSE stream of record writes, and its tickets for EventSource.
import type { ServiceSpec } from '../compile/types.js'
import { successEnvelope, type ContractFamily } from './route-contract.js'

export type EventRoute = 'stream' | 'ticket'

const STREAM_DESCRIPTION =
  'Un evento por alta, edición, movimiento de estado o eliminación en los módulos pedidos, con `id:` igual al ' +
  '`seq` de la auditoría y el registro tal como lo devolvería un GET de quien escucha (ámbito, campos ocultos, ' +
  'enmascarado; un evento que descifra queda registrado como consulta). Eventos: `crear`, `editar`, `mover`, ' +
  '`eliminar` y `fuera` (el registro deja el ámbito o el filtro: solo su id); `recargar` si el punto de ' +
  'reanudación es demasiado antiguo; `cerrado` cuando el token deja de valer o falta el permiso. Líneas de ' +
  'comentario cada 15 s. Reanuda con la cabecera `Last-Event-ID` o `desde`. Los demás parámetros son filtros ' +
  'de la lista de cada módulo (D11). Con token bearer o, desde un `EventSource`, con un vale de ' +
  '`POST /eventos/ticket`.\n\n**Permiso necesario:** `{modulo}.ver` de cada módulo.'

export function eventContracts(service: ServiceSpec): ContractFamily<EventRoute> {
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
    prefix: '/eventos',
    routes: {
      stream: {
        operationId: 'live_events',
        method: 'GET',
        url: '/',
        tags: ['eventos'],
        summary: 'Flujo de cambios en vivo (Server-Sent Events)',
        description: STREAM_DESCRIPTION,
        security: 'bearerOrTicket',
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
            content: {
              mediaType: 'text/event-stream',
              schema: { type: 'string' },
              example: `id: 42\nevent: crear\ndata: ${exampleEvent}\n\n`,
            },
          },
        },
        errors: ['BadRequest', 'Unauthorized', 'Forbidden', 'TooManyRequests', 'InternalError'],
      },
      ticket: {
        operationId: 'live_events_ticket',
        method: 'POST',
        url: '/ticket',
        tags: ['eventos'],
        summary: 'Vale de un solo uso para abrir el flujo desde un navegador',
        description:
          'Un `EventSource` no puede enviar la cabecera `Authorization`, y un token en la URL acaba en los registros: ' +
          'este vale, válido 30 segundos y un solo uso, va en `?ticket=` y queda ligado al token que lo pidió.',
        security: 'bearer',
        responses: {
          201: {
            description: 'Un vale',
            content: {
              schema: successEnvelope({
                type: 'object',
                required: ['ticket', 'caduca'],
                properties: {
                  ticket: { type: 'string' },
                  caduca: { type: 'string', description: 'AAAA-MM-DD HH:MM:SS en la zona horaria del servicio (D9)' },
                },
              }),
              example: { success: true, data: { ticket: 'q3Vb0…', caduca: '2026-11-23 11:00:30' } },
            },
          },
        },
        errors: ['Unauthorized', 'TooManyRequests', 'InternalError'],
      },
    },
  }
}
