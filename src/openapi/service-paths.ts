// The paths that are not a module's: session (API reference 4.1-4.3), audit trail (D25), and the
// extra endpoints of D3 (health, this document, the docs page).
import { AUDIT_CHAIN_COLUMNS } from '../compile/audit-columns.js'
import { AUDIT_ACTIONS } from '../records/audit-query.js'
import type { JsonSchema } from '../compile/field-types.js'
import { META } from '../compile/metadata.js'
import type { ServiceSpec } from '../compile/types.js'
import { PASSWORD_MAX_BYTES, PASSWORD_MIN_LENGTH, PASSWORD_MIN_LENGTH_ADMIN } from '../records/password-policy.js'
import { exampleValue } from './examples.js'
import { commonHeaders, errorRefs, messageData, ref, successEnvelope, type OpenApiObject } from './responses.js'

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

function profileSchemas(service: ServiceSpec): Record<string, JsonSchema> {
  const record = service.accounts.spec.schemas.record['properties'] as Record<string, JsonSchema>
  return Object.fromEntries(service.accounts.profile.map((name) => [name, record[name] ?? {}]))
}

function sessionPaths(service: ServiceSpec): Paths {
  const profile = profileSchemas(service)
  const accounts = service.accounts.spec
  const profileExample = Object.fromEntries(
    service.accounts.profile.map((name) => {
      const field = accounts.fieldsByName.get(name)
      return [name, field === undefined ? null : (exampleValue(field) ?? null)]
    }),
  )
  const userId = `${accounts.prefix}-2026-00001`
  return {
    '/auth/login': {
      post: {
        operationId: 'login',
        tags: ['sesion'],
        summary: 'Iniciar sesión',
        description:
          'Devuelve un token bearer válido durante `token_days` días (API reference 5.1, D19). No necesita token: pulse **Authorize** y pegue `data.token`.',
        security: [],
        requestBody: {
          required: true,
          content: json(
            {
              type: 'object',
              required: ['username', 'password'],
              properties: {
                username: { type: 'string', minLength: 1 },
                password: { type: 'string', minLength: 1, format: 'password' },
              },
            },
            { username: 'admin', password: 'su-contraseña' },
          ),
        },
        responses: {
          200: {
            description: 'Token y usuario',
            headers: commonHeaders(),
            content: json(
              successEnvelope({
                type: 'object',
                required: ['token', 'user'],
                properties: {
                  token: { type: 'string' },
                  user: {
                    type: 'object',
                    required: ['id', ...Object.keys(profile)],
                    properties: { id: { type: 'string' }, ...profile },
                  },
                },
              }),
              { success: true, data: { token: 'eyJhbGciOiJIUzI1NiJ9.…', user: { id: userId, ...profileExample } } },
            ),
          },
          ...errorRefs([
            'BadRequest',
            'BadCredentials',
            'TooLarge',
            'UnsupportedMediaType',
            'TooManyRequests',
            'InternalError',
          ]),
        },
      },
    },
    '/auth/logout': {
      post: {
        operationId: 'logout',
        tags: ['sesion'],
        summary: 'Cerrar sesión',
        description: 'Revoca el token de forma duradera (D20).',
        security: [{ bearer: [] }],
        responses: {
          200: {
            description: 'Sesión cerrada',
            headers: commonHeaders(),
            content: json(successEnvelope(messageData), { success: true, data: { message: 'Sesión cerrada' } }),
          },
          ...errorRefs(['Unauthorized', 'TooManyRequests', 'InternalError']),
        },
      },
    },
    '/me': {
      get: {
        operationId: 'me',
        tags: ['sesion'],
        summary: 'Usuario actual',
        description: 'El usuario del token (API reference 2.9).',
        security: [{ bearer: [] }],
        responses: {
          200: {
            description: 'Usuario actual',
            headers: commonHeaders(),
            content: json(
              successEnvelope({
                type: 'object',
                required: [META.id, ...Object.keys(profile), META.created],
                properties: { [META.id]: { type: 'string' }, ...profile, [META.created]: { type: 'string' } },
              }),
              { success: true, data: { [META.id]: userId, ...profileExample, [META.created]: '2026-01-15 10:31:02' } },
            ),
          },
          ...errorRefs(['Unauthorized', 'TooManyRequests', 'InternalError']),
        },
      },
    },
    '/me/password': {
      post: {
        operationId: 'change_password',
        tags: ['sesion'],
        summary: 'Cambiar la contraseña propia',
        description:
          `Cualquier usuario cambia su contraseña dando la actual. La nueva: al menos ${PASSWORD_MIN_LENGTH} caracteres ` +
          `(${PASSWORD_MIN_LENGTH_ADMIN} si el rol gestiona cuentas), como máximo ${PASSWORD_MAX_BYTES} bytes en UTF-8, fuera de la ` +
          'lista de contraseñas comunes, sin repeticiones ni secuencias y sin el nombre de usuario. Todos los tokens anteriores ' +
          '(también el de esta solicitud) dejan de valer en todas las instancias; la respuesta trae uno nuevo.',
        security: [{ bearer: [] }],
        requestBody: {
          required: true,
          content: json(
            {
              type: 'object',
              required: ['password_actual', 'password_nueva'],
              additionalProperties: false,
              properties: {
                password_actual: { type: 'string', minLength: 1, format: 'password' },
                password_nueva: { type: 'string', minLength: PASSWORD_MIN_LENGTH, format: 'password' },
              },
            },
            { password_actual: 'la-contraseña-de-ahora', password_nueva: 'otra-frase-larga-y-propia' },
          ),
        },
        responses: {
          200: {
            description: 'Contraseña cambiada; un token nuevo',
            headers: commonHeaders(),
            content: json(
              successEnvelope({
                type: 'object',
                required: ['message', 'token'],
                properties: { message: { type: 'string' }, token: { type: 'string' } },
              }),
              { success: true, data: { message: 'Contraseña cambiada', token: 'eyJhbGciOiJIUzI1NiJ9.…' } },
            ),
          },
          ...errorRefs([
            'BadRequest',
            'Unauthorized',
            'TooLarge',
            'UnsupportedMediaType',
            'TooManyRequests',
            'InternalError',
          ]),
        },
      },
    },
  }
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

const publicPaths: Paths = {
  '/health': {
    get: {
      operationId: 'health',
      tags: ['sistema'],
      summary: 'Estado del servicio',
      description: 'Sin token y sin límite de solicitudes; 503 si la base de datos no responde (D3).',
      security: [],
      responses: {
        200: {
          description: 'El servicio y su base de datos responden',
          content: json(
            successEnvelope({
              type: 'object',
              required: ['status'],
              properties: {
                status: { const: 'ok' },
                esquema: {
                  type: 'object',
                  required: ['reinicio_pendiente', 'motivos'],
                  description:
                    'Solo si el servicio ya no sirve el esquema vigente (modules.yaml cambiado o base de datos ' +
                    'migrada por otro proceso): reinícielo.',
                  properties: {
                    reinicio_pendiente: { const: true },
                    motivos: { type: 'array', items: { type: 'string' } },
                  },
                },
                integridad: {
                  type: 'object',
                  required: ['estado', 'registros_afectados'],
                  description:
                    'Solo si hay registros cuyos valores cifrados no superaron su comprobación al leerlos, desde que arrancó esta instancia.',
                  properties: { estado: { const: 'error' }, registros_afectados: { type: 'integer', minimum: 0 } },
                },
              },
            }),
            { success: true, data: { status: 'ok' } },
          ),
        },
        ...errorRefs(['Unavailable']),
      },
    },
  },
  '/openapi.json': {
    get: {
      operationId: 'openapi',
      tags: ['sistema'],
      summary: 'Este documento OpenAPI',
      description: 'Sin token (D3).',
      security: [],
      responses: {
        200: { description: 'Documento OpenAPI 3.1', headers: commonHeaders(), content: json({ type: 'object' }) },
        ...errorRefs(['TooManyRequests']),
      },
    },
  },
  '/docs': {
    get: {
      operationId: 'docs',
      tags: ['sistema'],
      summary: 'Página de documentación interactiva',
      description: 'Sin token (D3).',
      security: [],
      responses: {
        200: {
          description: 'Página HTML',
          headers: commonHeaders(),
          content: { 'text/html': { schema: { type: 'string' } } },
        },
        ...errorRefs(['TooManyRequests']),
      },
    },
  },
}

export function servicePaths(service: ServiceSpec): Paths {
  return { ...sessionPaths(service), ...auditPaths(service), ...eventPaths(service), ...publicPaths }
}
