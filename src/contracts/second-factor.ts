// The caller's own second factors (D42): enrol a TOTP authenticator, confirm it (which hands
// out the recovery codes, once), list the factors, remove one with a current code. Every route
// is open to an account whose role requires a factor it has not enrolled yet.
import type { JsonSchema } from '../compile/field-types.js'
import { messageData, successEnvelope, type ContractFamily } from './route-contract.js'

export type SecondFactorRoute = 'list' | 'startTotp' | 'confirmTotp' | 'remove'

/** The body of the confirmation and of a removal: a current code, nothing else (D7). */
export const CODE_BODY = {
  type: 'object',
  required: ['codigo'],
  additionalProperties: false,
  properties: { codigo: { type: 'string', minLength: 1 } },
} as const

const factor: JsonSchema = {
  type: 'object',
  required: ['id', 'tipo', 'creado', 'confirmado_en'],
  properties: {
    id: { type: 'string' },
    tipo: { type: 'string', enum: ['totp', 'passkey'] },
    creado: { type: 'string', description: 'Cuándo se pidió el alta (hora del servicio).' },
    confirmado_en: { type: 'string', description: 'Cuándo se confirmó con un código.' },
  },
}

/** Ten recovery codes as an enrolment hands them out (the examples of every first factor). */
export const RECOVERY_EXAMPLE = [
  'k7pq-2mzx-a9rt',
  'hb3w-q8nd-5cfe',
  'x2tm-r6yk-p4sa',
  'vd9e-m3qz-w7hn',
  'c5rg-t8xb-k2pu',
  'n4fw-y6ja-e9dm',
  'q7hs-b2vc-z5tr',
  'm8kp-d3wx-g6ne',
  'u2ya-f9rq-h4jt',
  'e6zb-w5mc-s8kx',
]

const FACTOR_ID = '5b0c1d2e-3f40-4a5b-8c6d-7e8f9a0b1c2d'
const SECRET_EXAMPLE = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP'
const BASE_ERRORS = ['Unauthorized', 'TooManyRequests', 'InternalError'] as const
const BODY_ERRORS = ['BadRequest', 'TooLarge', 'UnsupportedMediaType'] as const

export const secondFactorContracts: ContractFamily<SecondFactorRoute> = {
  prefix: '',
  routes: {
    list: {
      operationId: 'list_second_factors',
      method: 'GET',
      url: '/me/segundo-factor',
      tags: ['sesion'],
      summary: 'Segundos factores propios',
      description:
        'Los factores confirmados de la cuenta, sin secretos, y cuántos códigos de recuperación quedan sin usar (D42).',
      security: 'bearer',
      beforeEnrolment: true,
      responses: {
        200: {
          description: 'Factores',
          content: {
            schema: successEnvelope({
              type: 'object',
              required: ['factores', 'recuperacion_restantes'],
              properties: {
                factores: { type: 'array', items: factor },
                recuperacion_restantes: { type: 'integer', minimum: 0 },
              },
            }),
            example: {
              success: true,
              data: {
                factores: [
                  { id: FACTOR_ID, tipo: 'totp', creado: '2026-11-27 10:00:02', confirmado_en: '2026-11-27 10:00:41' },
                ],
                recuperacion_restantes: 10,
              },
            },
          },
        },
      },
      errors: [...BASE_ERRORS],
    },
    startTotp: {
      operationId: 'start_totp',
      method: 'POST',
      url: '/me/segundo-factor/totp',
      tags: ['sesion'],
      summary: 'Alta de TOTP: secreto',
      description:
        'Un secreto nuevo y su URI `otpauth://` (RFC 6238: SHA-1, 6 cifras, 30 s) para la aplicación de ' +
        'autenticación; el alta queda pendiente hasta confirmarla con un código. Pedirla de nuevo sustituye ' +
        'la pendiente; con un TOTP ya confirmado, 409 (D42).',
      security: 'bearer',
      beforeEnrolment: true,
      responses: {
        201: {
          description: 'Secreto y URI, solo en esta respuesta',
          content: {
            schema: successEnvelope({
              type: 'object',
              required: ['secreto', 'uri'],
              properties: { secreto: { type: 'string' }, uri: { type: 'string' } },
            }),
            example: {
              success: true,
              data: {
                secreto: SECRET_EXAMPLE,
                uri: `otpauth://totp/municipal-records:agente_1?issuer=municipal-records&secret=${SECRET_EXAMPLE}&algorithm=SHA1&digits=6&period=30`,
              },
            },
          },
        },
      },
      errors: ['Conflict', ...BASE_ERRORS],
    },
    confirmTotp: {
      operationId: 'confirm_totp',
      method: 'POST',
      url: '/me/segundo-factor/totp/confirmar',
      tags: ['sesion'],
      summary: 'Alta de TOTP: confirmar',
      description:
        'Confirma el alta pendiente con el código que muestra la aplicación. La respuesta trae 10 códigos de ' +
        'recuperación de un solo uso, que no se vuelven a mostrar (se guardan resumidos); sustituyen a los ' +
        'anteriores. Sin alta pendiente, 409; un código que no vale, 400 (D42).',
      security: 'bearer',
      beforeEnrolment: true,
      body: { schema: CODE_BODY, example: { codigo: '492039' } },
      responses: {
        200: {
          description: 'Códigos de recuperación',
          content: {
            schema: successEnvelope({
              type: 'object',
              required: ['recuperacion'],
              properties: {
                recuperacion: { type: 'array', minItems: 10, maxItems: 10, items: { type: 'string' } },
              },
            }),
            example: {
              success: true,
              data: {
                recuperacion: RECOVERY_EXAMPLE,
              },
            },
          },
        },
      },
      errors: [...BODY_ERRORS, 'Conflict', ...BASE_ERRORS],
    },
    remove: {
      operationId: 'remove_second_factor',
      method: 'DELETE',
      url: '/me/segundo-factor/:id',
      tags: ['sesion'],
      summary: 'Quitar un segundo factor',
      description:
        'Necesita un código actual (TOTP o de recuperación) en `codigo`; un código que no vale cuenta como un ' +
        'inicio de sesión fallido desde esa dirección (D19). Al quitar el último factor se anulan los códigos ' +
        'de recuperación (D42).',
      security: 'bearer',
      beforeEnrolment: true,
      parameters: [
        {
          name: 'id',
          in: 'path',
          required: true,
          description: 'El `id` del factor, como lo da GET /me/segundo-factor.',
          schema: { type: 'string' },
          example: FACTOR_ID,
        },
      ],
      body: { schema: CODE_BODY, example: { codigo: '492039' } },
      responses: {
        200: {
          description: 'Factor quitado',
          content: {
            schema: successEnvelope(messageData),
            example: { success: true, data: { message: 'Segundo factor eliminado' } },
          },
        },
      },
      errors: [...BODY_ERRORS, 'NotFound', ...BASE_ERRORS],
    },
  },
}
