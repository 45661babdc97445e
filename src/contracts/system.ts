// The endpoints of D3 that need no token: health, this OpenAPI document and the docs page.
import { successEnvelope, type ContractFamily } from './route-contract.js'

/** Where the docs page and its assets hang from the base path. */
export const DOCS_PREFIX = '/docs'

export type SystemRoute = 'health' | 'openapi' | 'docs'

export const systemContracts: ContractFamily<SystemRoute> = {
  prefix: '',
  routes: {
    health: {
      operationId: 'health',
      method: 'GET',
      url: '/health',
      tags: ['sistema'],
      summary: 'Estado del servicio',
      description: 'Sin token y sin límite de solicitudes; 503 si la base de datos no responde (D3).',
      security: 'public',
      responses: {
        200: {
          description: 'El servicio y su base de datos responden',
          headers: 'none',
          content: {
            schema: successEnvelope({
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
            example: { success: true, data: { status: 'ok' } },
          },
        },
      },
      errors: ['Unavailable'],
    },
    openapi: {
      operationId: 'openapi',
      method: 'GET',
      url: '/openapi.json',
      tags: ['sistema'],
      summary: 'Este documento OpenAPI',
      description: 'Sin token (D3).',
      security: 'public',
      responses: { 200: { description: 'Documento OpenAPI 3.1', content: { schema: { type: 'object' } } } },
      errors: ['TooManyRequests'],
    },
    docs: {
      operationId: 'docs',
      method: 'GET',
      url: DOCS_PREFIX,
      tags: ['sistema'],
      summary: 'Página de documentación interactiva',
      description: 'Sin token (D3).',
      security: 'public',
      responses: {
        200: { description: 'Página HTML', content: { mediaType: 'text/html', schema: { type: 'string' } } },
      },
      errors: ['TooManyRequests'],
    },
  },
}
