// Passkeys (WebAuthn, D42): enrolling one for the signed-in account and signing in with one.
// Each ceremony is two calls: the options for navigator.credentials.create()/get(), whose
// challenge the service keeps (single use, minutes), then the authenticator's answer as the
// browser's toJSON() gives it. A passkey sign-in answers as POST /auth/login does.
import type { JsonSchema } from '../compile/field-types.js'
import type { ServiceSpec } from '../compile/types.js'
import { successEnvelope, type ContractFamily } from './route-contract.js'
import { RECOVERY_EXAMPLE } from './second-factor.js'
import { sessionContracts } from './session.js'

export type PasskeyRoute = 'registrationOptions' | 'register' | 'loginOptions' | 'login'

/** An authenticator's answer (RegistrationResponseJSON, AuthenticationResponseJSON): its outer shape. */
export const CREDENTIAL_BODY = {
  type: 'object',
  required: ['id', 'rawId', 'type', 'response'],
  properties: {
    id: { type: 'string', minLength: 1 },
    rawId: { type: 'string', minLength: 1 },
    type: { type: 'string', enum: ['public-key'] },
    response: { type: 'object' },
    clientExtensionResults: { type: 'object' },
    authenticatorAttachment: { type: 'string' },
  },
} as const

const object: JsonSchema = { type: 'object' }
const list: JsonSchema = { type: 'array', items: { type: 'object' } }
/** PublicKeyCredentialCreationOptionsJSON (WebAuthn level 3), as the library writes it. */
const CREATION_OPTIONS: JsonSchema = {
  type: 'object',
  required: ['challenge', 'rp', 'user', 'pubKeyCredParams'],
  properties: {
    challenge: { type: 'string' },
    rp: object,
    user: object,
    pubKeyCredParams: list,
    timeout: { type: 'integer' },
    attestation: { type: 'string' },
    excludeCredentials: list,
    authenticatorSelection: object,
    extensions: object,
    hints: { type: 'array', items: { type: 'string' } },
  },
}
/** PublicKeyCredentialRequestOptionsJSON. */
const REQUEST_OPTIONS: JsonSchema = {
  type: 'object',
  required: ['challenge'],
  properties: {
    challenge: { type: 'string' },
    rpId: { type: 'string' },
    timeout: { type: 'integer' },
    userVerification: { type: 'string' },
    allowCredentials: list,
    extensions: object,
    hints: { type: 'array', items: { type: 'string' } },
  },
}

const options = (description: string, schema: JsonSchema, example: Record<string, unknown>) => ({
  description,
  content: { schema: successEnvelope(schema), example: { success: true, data: example } },
})

const CHALLENGE = 'q3Vx0m1bS6y2h9n8QhM3yJrV0a6k1oCk2n8P4w7Z5fE'
const CREDENTIAL_ID = 'mF3hXwq9T1C8n0aYx2b7Gg'
const BASE_ERRORS = ['TooManyRequests', 'InternalError'] as const
const BODY_ERRORS = ['BadRequest', 'TooLarge', 'UnsupportedMediaType'] as const
const credentialExample = {
  id: CREDENTIAL_ID,
  rawId: CREDENTIAL_ID,
  type: 'public-key',
  response: { clientDataJSON: 'eyJ0eXBlIjoid2ViYXV0aG4uZ2V0Ii…', authenticatorData: '…', signature: '…' },
  clientExtensionResults: {},
}

export function passkeyContracts(service: ServiceSpec): ContractFamily<PasskeyRoute> {
  const loginAnswer = sessionContracts(service).routes.login.responses
  const recovery: JsonSchema = { type: 'array', minItems: 10, maxItems: 10, items: { type: 'string' } }
  return {
    prefix: '',
    routes: {
      registrationOptions: {
        operationId: 'passkey_registration_options',
        method: 'POST',
        url: '/me/segundo-factor/passkey/opciones',
        tags: ['sesion'],
        summary: 'Alta de llave de acceso: opciones',
        description:
          'Las opciones de `navigator.credentials.create()` (PublicKeyCredentialCreationOptionsJSON) para una llave ' +
          'de acceso de la cuenta: credencial residente y verificación del usuario obligatorias, sin las llaves que ya ' +
          'tiene. El reto vale una vez y 5 minutos, solo para esta cuenta (D42).',
        security: 'bearer',
        beforeEnrolment: true,
        responses: {
          200: options('Opciones de registro', CREATION_OPTIONS, {
            challenge: CHALLENGE,
            rp: { name: 'municipal-records', id: 'records.example.es' },
            user: { id: 'dXNyLTIwMjYtMDAwMDE', name: 'agente_1', displayName: 'agente_1' },
            pubKeyCredParams: [{ alg: -8, type: 'public-key' }],
            timeout: 300000,
            attestation: 'none',
            excludeCredentials: [],
            authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
          }),
        },
        errors: ['Unauthorized', ...BASE_ERRORS],
      },
      register: {
        operationId: 'passkey_register',
        method: 'POST',
        url: '/me/segundo-factor/passkey',
        tags: ['sesion'],
        summary: 'Alta de llave de acceso: respuesta',
        description:
          'La respuesta del autenticador (`credential.toJSON()`), comprobada contra el reto, el origen y el RP id ' +
          'configurados; la llave queda guardada (id, clave pública, contador, transportes). Si es el primer factor ' +
          'de la cuenta, la respuesta trae los 10 códigos de recuperación, que no se vuelven a mostrar. Un reto ' +
          'desconocido, caducado o ya usado, o una respuesta que no se verifica: 400 (D42).',
        security: 'bearer',
        beforeEnrolment: true,
        body: { schema: CREDENTIAL_BODY, example: credentialExample },
        responses: {
          201: {
            description: 'Llave guardada',
            content: {
              schema: successEnvelope({
                type: 'object',
                required: ['id'],
                properties: { id: { type: 'string' }, recuperacion: recovery },
              }),
              example: { success: true, data: { id: CREDENTIAL_ID, recuperacion: RECOVERY_EXAMPLE } },
            },
          },
        },
        errors: [...BODY_ERRORS, 'Unauthorized', 'Conflict', ...BASE_ERRORS],
      },
      loginOptions: {
        operationId: 'passkey_login_options',
        method: 'POST',
        url: '/auth/login/passkey/opciones',
        tags: ['sesion'],
        summary: 'Inicio de sesión con llave de acceso: opciones',
        description:
          'Las opciones de `navigator.credentials.get()` (PublicKeyCredentialRequestOptionsJSON) para una credencial ' +
          'residente: sin cuerpo y sin nombre de usuario, de modo que nadie averigua qué cuentas tienen llave. El reto ' +
          'vale una vez y 5 minutos (D42).',
        security: 'public',
        responses: {
          200: options('Opciones de autenticación', REQUEST_OPTIONS, {
            challenge: CHALLENGE,
            rpId: 'records.example.es',
            timeout: 300000,
            userVerification: 'required',
          }),
        },
        errors: [...BASE_ERRORS],
      },
      login: {
        operationId: 'passkey_login',
        method: 'POST',
        url: '/auth/login/passkey',
        tags: ['sesion'],
        summary: 'Inicio de sesión con llave de acceso',
        description:
          'La aserción del autenticador (`credential.toJSON()`). Una llave de acceso con verificación del usuario ' +
          'cubre los dos factores: la respuesta es la de POST /auth/login. Una llave desconocida, un reto que no vale ' +
          'o una firma que no se verifica: 401 y cuenta como inicio de sesión fallido (D19, D42).',
        security: 'public',
        body: { schema: CREDENTIAL_BODY, example: credentialExample },
        responses: loginAnswer,
        errors: [...BODY_ERRORS, 'BadCredentials', ...BASE_ERRORS],
      },
    },
  }
}
