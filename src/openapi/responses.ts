// Every error answer of errors.ts and the common headers, as OpenAPI components; a contract names
// its error answers and this file writes them (the success envelope is contracts/route-contract.ts).
// Messages come from errors.ts: the document says what the error handler sends.
import { MESSAGES } from '../errors.js'
import type { JsonSchema } from '../compile/field-types.js'
import { ref, type ErrorResponseName, type ExtraHeader, type OpenApiObject } from '../contracts/route-contract.js'

const errorSchema: JsonSchema = {
  type: 'object',
  required: ['success', 'error'],
  properties: {
    success: { const: false },
    error: { type: 'string', description: 'Frase en español para mostrar a la persona usuaria.' },
    details: {
      type: 'array',
      description: 'Un elemento por problema, con el campo al que se refiere (D7).',
      items: {
        type: 'object',
        required: ['field', 'message'],
        properties: {
          field: { type: 'string' },
          message: { type: 'string' },
          metodos: {
            type: 'array',
            items: { type: 'string', enum: ['totp', 'recuperacion'] },
            description: 'Login con segundo factor (D42): cómo puede darse el `codigo`.',
          },
        },
      },
    },
  },
}

const RATE_HEADERS: Readonly<Record<string, OpenApiObject>> = {
  'x-ratelimit-limit': { description: 'Límite de la ventana más ajustada (D24).', schema: { type: 'integer' } },
  'x-ratelimit-remaining': { description: 'Solicitudes que quedan en esa ventana.', schema: { type: 'integer' } },
  'x-ratelimit-reset': { description: 'Segundos hasta que la ventana se reinicia.', schema: { type: 'integer' } },
}

export const HEADERS: Readonly<Record<string, OpenApiObject>> = {
  'x-request-id': {
    description: 'Identificador de la solicitud, el mismo que llevan sus líneas de log.',
    schema: { type: 'string' },
  },
  ...RATE_HEADERS,
  'retry-after': { description: 'Segundos que conviene esperar antes de reintentar.', schema: { type: 'integer' } },
  etag: { description: 'Versión del registro, `"<_version>"`, para If-Match (D13).', schema: { type: 'string' } },
}

/** Headers of every answer that passed the rate limits. */
export const commonHeaders = (extra: readonly ExtraHeader[] = []): OpenApiObject =>
  Object.fromEntries(
    ['x-request-id', ...Object.keys(RATE_HEADERS), ...extra].map((name) => [name, ref('headers', name)]),
  )

interface ErrorCase {
  readonly summary: string
  readonly error: string
  readonly details?: readonly { field: string; message: string; metodos?: readonly string[] }[]
}

function errorResponse(
  description: string,
  cases: Readonly<Record<string, ErrorCase>>,
  headers: readonly string[] = [],
): OpenApiObject {
  const examples = Object.fromEntries(
    Object.entries(cases).map(([name, c]) => [
      name,
      {
        summary: c.summary,
        value: { success: false, error: c.error, ...(c.details === undefined ? {} : { details: c.details }) },
      },
    ]),
  )
  return {
    description,
    headers: Object.fromEntries(['x-request-id', ...headers].map((name) => [name, ref('headers', name)])),
    content: { 'application/json': { schema: ref('schemas', 'Error'), examples } },
  }
}

/** Error answers by component name, with the HTTP status each stands for. */
const ERRORS: Readonly<Record<ErrorResponseName, { readonly status: string; readonly response: OpenApiObject }>> = {
  BadRequest: {
    status: '400',
    response: errorResponse('Datos no válidos (D5, D7, D11).', {
      required: {
        summary: 'Faltan campos obligatorios',
        error: MESSAGES.required,
        details: [{ field: 'campo', message: "El campo 'campo' es obligatorio" }],
      },
      invalid: {
        summary: 'Tipo, valor o campo desconocido',
        error: `${MESSAGES.invalid}: …`,
        details: [{ field: 'campo', message: '…' }],
      },
      badJson: { summary: 'El cuerpo no es un objeto JSON', error: MESSAGES.badJson },
    }),
  },
  Unauthorized: {
    status: '401',
    response: errorResponse('Sin token, o token inválido, caducado o revocado (D20).', {
      noToken: { summary: 'Sin cabecera Authorization', error: MESSAGES.noToken },
      invalidToken: { summary: 'Token inválido, caducado o revocado', error: MESSAGES.invalidToken },
    }),
  },
  BadCredentials: {
    status: '401',
    response: errorResponse(
      'Usuario o contraseña incorrectos, o cuenta desactivada (D19); falta el segundo factor o no es válido (D42).',
      {
        badCredentials: { summary: 'Credenciales inválidas', error: MESSAGES.badCredentials },
        secondFactorRequired: {
          summary: 'Contraseña correcta; falta `codigo` (D42)',
          error: MESSAGES.secondFactorRequired,
          details: [{ field: 'codigo', message: "Indique en 'codigo' el código …", metodos: ['totp', 'recuperacion'] }],
        },
        secondFactorInvalid: {
          summary: 'Código incorrecto, caducado o ya usado (D42)',
          error: MESSAGES.secondFactorInvalid,
          details: [{ field: 'codigo', message: 'El código no es válido, …', metodos: ['totp', 'recuperacion'] }],
        },
      },
    ),
  },
  Forbidden: {
    status: '403',
    response: errorResponse(
      'El rol no tiene el permiso de la operación (API reference 5.2), o debe dar de alta un segundo factor (D42).',
      { forbidden: { summary: 'Sin permiso', error: MESSAGES.forbidden } },
    ),
  },
  NotFound: {
    status: '404',
    response: errorResponse('El registro no existe o está eliminado (D10).', {
      recordNotFound: { summary: 'Registro no encontrado', error: MESSAGES.recordNotFound },
      fileNotFound: { summary: 'Campo o fichero inexistente (D43)', error: MESSAGES.fileNotFound },
    }),
  },
  Conflict: {
    status: '409',
    response: errorResponse(
      'Valor único repetido (D12), versión distinta de If-Match (D13) o alta de segundo factor fuera de orden (D42).',
      {
        unique: {
          summary: 'Valor único repetido',
          error: "Ya existe un registro con el mismo valor en 'campo'",
          details: [{ field: 'campo', message: "El valor de 'campo' ya está en uso" }],
        },
        version: {
          summary: 'Conflicto de versión',
          error: MESSAGES.versionConflict,
          details: [{ field: '_version', message: 'La versión actual es 2' }],
        },
      },
    ),
  },
  TooLarge: {
    status: '413',
    response: errorResponse('Cuerpo de más de 1 MiB (D7), o fichero de más de `max_size` de su campo (D43).', {
      bodyTooLarge: { summary: 'Demasiado grande', error: MESSAGES.bodyTooLarge },
      fileTooLarge: {
        summary: 'Fichero demasiado grande (D43)',
        error: "El fichero supera el tamaño máximo del campo 'campo' (52428800 bytes)",
        details: [{ field: 'campo', message: 'Como máximo 52428800 bytes' }],
      },
    }),
  },
  UnsupportedMediaType: {
    status: '415',
    response: errorResponse(
      'El cuerpo no es application/json, o el fichero no es de un tipo que admita su campo (D43).',
      {
        unsupported: { summary: 'Tipo no admitido', error: MESSAGES.unsupportedMediaType },
        fileType: {
          summary: 'Tipo de fichero no admitido (D43)',
          error: "Tipo de fichero no admitido en 'campo': text/html",
          details: [{ field: 'content-type', message: 'Tipos admitidos: application/pdf, image/jpeg' }],
        },
      },
    ),
  },
  Unprocessable: {
    status: '422',
    response: errorResponse('El fichero no se guarda tal como llegó (D43): nada queda guardado.', {
      contentMismatch: {
        summary: 'El contenido no es del tipo declarado',
        error: `${MESSAGES.fileRejected}: el contenido no es del tipo declarado (application/pdf)`,
        details: [{ field: 'campo', message: 'el contenido no es del tipo declarado (application/pdf)' }],
      },
      digestMismatch: {
        summary: 'X-SHA256 no coincide',
        error: `${MESSAGES.fileRejected}: el SHA-256 recibido (…) no coincide con el de X-SHA256`,
        details: [{ field: 'x-sha256', message: 'el SHA-256 recibido (…) no coincide con el de X-SHA256' }],
      },
    }),
  },
  TooManyRequests: {
    status: '429',
    response: errorResponse(
      'Límite de solicitudes superado (API reference 8, D24).',
      {
        rateLimited: { summary: 'Demasiadas solicitudes', error: MESSAGES.rateLimited },
      },
      [...Object.keys(RATE_HEADERS), 'retry-after'],
    ),
  },
  InternalError: {
    status: '500',
    response: errorResponse(
      'Error inesperado: se registra con el identificador de la solicitud, nunca se muestra (D23).',
      {
        internal: { summary: 'Error interno', error: MESSAGES.internal },
      },
    ),
  },
  Unavailable: {
    status: '503',
    response: errorResponse(
      'Base de datos inaccesible u ocupada.',
      {
        unavailable: { summary: 'No disponible', error: MESSAGES.unavailable },
        busy: { summary: 'Ocupado', error: MESSAGES.busy },
      },
      ['retry-after'],
    ),
  },
}

/**
 * Every 4xx passes through the rate limits first, so it carries their headers too (D24);
 * a 429 adds retry-after.
 */
export const ERROR_RESPONSES = Object.fromEntries(
  Object.entries(ERRORS).map(([name, { status, response }]) => {
    if (!status.startsWith('4')) return [name, { status, response }]
    const headers = { ...(response['headers'] as OpenApiObject) }
    for (const header of Object.keys(RATE_HEADERS)) headers[header] = ref('headers', header)
    return [name, { status, response: { ...response, headers } }]
  }),
) as Readonly<Record<ErrorResponseName, { readonly status: string; readonly response: OpenApiObject }>>

export const errorComponents = {
  schemas: { Error: errorSchema },
  responses: Object.fromEntries(Object.entries(ERROR_RESPONSES).map(([name, e]) => [name, e.response])),
  headers: HEADERS,
}

/** `{ "400": $ref BadRequest, ... }` for the named error responses. */
export const errorRefs = (names: readonly ErrorResponseName[]): OpenApiObject =>
  Object.fromEntries(names.map((name) => [ERROR_RESPONSES[name].status, ref('responses', name)]))
