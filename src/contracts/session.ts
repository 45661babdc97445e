// Login, logout, the current user and a change of one's own password (API reference 4.1-4.3,
// D19, D20). The bodies' schemas are what the session routes check.
import type { JsonSchema } from '../compile/field-types.js'
import { META } from '../compile/metadata.js'
import type { ServiceSpec } from '../compile/types.js'
import { PASSWORD_MAX_BYTES, PASSWORD_MIN_LENGTH, PASSWORD_MIN_LENGTH_ADMIN } from '../records/password-policy.js'
import { exampleValue } from './examples.js'
import { messageData, successEnvelope, type ContractFamily } from './route-contract.js'

export type SessionRoute = 'login' | 'logout' | 'me' | 'changePassword'

/** Body of POST /me/password. */
export const PASSWORD_CHANGE_FIELDS = { current: 'password_actual', next: 'password_nueva' } as const

/** The login body's second-factor code (D42), read apart from the required fields. */
export const LOGIN_CODE = 'codigo'

/** The body of POST /auth/login; the session routes read it by this schema (D7). */
export const LOGIN_BODY = {
  type: 'object',
  required: ['username', 'password'],
  properties: {
    username: { type: 'string', minLength: 1 },
    password: { type: 'string', minLength: 1, format: 'password' },
    codigo: {
      type: 'string',
      minLength: 1,
      description:
        'Solo si la cuenta tiene segundo factor (D42): el código TOTP de 6 cifras o un código de recuperación.',
    },
  },
} as const

/** The body of POST /me/password: nothing else may come with it. */
export const PASSWORD_CHANGE_BODY = {
  type: 'object',
  required: [PASSWORD_CHANGE_FIELDS.current, PASSWORD_CHANGE_FIELDS.next],
  additionalProperties: false,
  properties: {
    [PASSWORD_CHANGE_FIELDS.current]: { type: 'string', minLength: 1, format: 'password' },
    [PASSWORD_CHANGE_FIELDS.next]: { type: 'string', minLength: PASSWORD_MIN_LENGTH, format: 'password' },
  },
} as const

const TOKEN_EXAMPLE = 'eyJhbGciOiJIUzI1NiJ9.…'

function profileSchemas(service: ServiceSpec): Record<string, JsonSchema> {
  const record = service.accounts.spec.schemas.record['properties'] as Record<string, JsonSchema>
  return Object.fromEntries(service.accounts.profile.map((name) => [name, record[name] ?? {}]))
}

const changePasswordDescription =
  `Cualquier usuario cambia su contraseña dando la actual. La nueva: al menos ${PASSWORD_MIN_LENGTH} caracteres ` +
  `(${PASSWORD_MIN_LENGTH_ADMIN} si el rol gestiona cuentas), como máximo ${PASSWORD_MAX_BYTES} bytes en UTF-8, fuera de la ` +
  'lista de contraseñas comunes, sin repeticiones ni secuencias y sin el nombre de usuario. Todos los tokens anteriores ' +
  '(también el de esta solicitud) dejan de valer en todas las instancias; la respuesta trae uno nuevo.'

export function sessionContracts(service: ServiceSpec): ContractFamily<SessionRoute> {
  const profile = profileSchemas(service)
  const accounts = service.accounts.spec
  const profileExample = Object.fromEntries(
    service.accounts.profile.map((name) => {
      const field = accounts.fieldsByName.get(name)
      return [name, field === undefined ? null : (exampleValue(field) ?? null)]
    }),
  )
  const userId = `${accounts.prefix}-2026-00001`
  const { current, next } = PASSWORD_CHANGE_FIELDS
  return {
    prefix: '',
    routes: {
      login: {
        operationId: 'login',
        method: 'POST',
        url: '/auth/login',
        tags: ['sesion'],
        summary: 'Iniciar sesión',
        description:
          'Devuelve un token bearer válido durante `token_days` días (API reference 5.1, D19). No necesita token: pulse **Authorize** y pegue `data.token`. ' +
          'Una cuenta con segundo factor envía además `codigo`; sin él, 401 `Se requiere segundo factor` con los métodos en `details` (D42).',
        security: 'public',
        body: {
          schema: LOGIN_BODY,
          example: { username: 'admin', password: 'su-contraseña' },
        },
        responses: {
          200: {
            description: 'Token y usuario',
            content: {
              schema: successEnvelope({
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
              example: { success: true, data: { token: TOKEN_EXAMPLE, user: { id: userId, ...profileExample } } },
            },
          },
        },
        errors: [
          'BadRequest',
          'BadCredentials',
          'TooLarge',
          'UnsupportedMediaType',
          'TooManyRequests',
          'InternalError',
        ],
      },
      logout: {
        operationId: 'logout',
        method: 'POST',
        url: '/auth/logout',
        tags: ['sesion'],
        summary: 'Cerrar sesión',
        description: 'Revoca el token de forma duradera (D20).',
        security: 'bearer',
        beforeEnrolment: true,
        responses: {
          200: {
            description: 'Sesión cerrada',
            content: {
              schema: successEnvelope(messageData),
              example: { success: true, data: { message: 'Sesión cerrada' } },
            },
          },
        },
        errors: ['Unauthorized', 'TooManyRequests', 'InternalError'],
      },
      me: {
        operationId: 'me',
        method: 'GET',
        url: '/me',
        tags: ['sesion'],
        summary: 'Usuario actual',
        description: 'El usuario del token (API reference 2.9).',
        security: 'bearer',
        beforeEnrolment: true,
        responses: {
          200: {
            description: 'Usuario actual',
            content: {
              schema: successEnvelope({
                type: 'object',
                required: [META.id, ...Object.keys(profile), META.created],
                properties: { [META.id]: { type: 'string' }, ...profile, [META.created]: { type: 'string' } },
              }),
              example: {
                success: true,
                data: { [META.id]: userId, ...profileExample, [META.created]: '2026-01-15 10:31:02' },
              },
            },
          },
        },
        errors: ['Unauthorized', 'TooManyRequests', 'InternalError'],
      },
      changePassword: {
        operationId: 'change_password',
        method: 'POST',
        url: '/me/password',
        tags: ['sesion'],
        summary: 'Cambiar la contraseña propia',
        description: changePasswordDescription,
        security: 'bearer',
        body: {
          schema: PASSWORD_CHANGE_BODY,
          example: { [current]: 'la-contraseña-de-ahora', [next]: 'otra-frase-larga-y-propia' },
        },
        responses: {
          200: {
            description: 'Contraseña cambiada; un token nuevo',
            content: {
              schema: successEnvelope({
                type: 'object',
                required: ['message', 'token'],
                properties: { message: { type: 'string' }, token: { type: 'string' } },
              }),
              example: { success: true, data: { message: 'Contraseña cambiada', token: TOKEN_EXAMPLE } },
            },
          },
        },
        errors: ['BadRequest', 'Unauthorized', 'TooLarge', 'UnsupportedMediaType', 'TooManyRequests', 'InternalError'],
      },
    },
  }
}
