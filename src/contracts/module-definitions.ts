// GET /me/modulos/{modulo}/explicacion (D47): a module's definitions, read-only: what one user may
// do in it, rule by rule (the lines of `records explain`), and the module as the caller sees it.
// For whoever reads the accounts (`{accounts}.ver`).
import type { ServiceSpec } from '../compile/types.js'
import { exampleId } from './examples.js'
import { MODULE } from './module-views.js'
import { successEnvelope, type ContractFamily } from './route-contract.js'

export type ModuleDefinitionRoute = 'explain'

export function moduleDefinitionContracts(service: ServiceSpec): ContractFamily<ModuleDefinitionRoute> {
  const accounts = service.accounts.spec
  const permission = accounts.permissions.ver
  return {
    prefix: '',
    routes: {
      explain: {
        operationId: 'module_explain',
        method: 'GET',
        url: '/me/modulos/:modulo/explicacion',
        tags: ['sesion'],
        summary: 'Qué puede hacer un usuario en un módulo y qué regla lo decide',
        description:
          'Las definiciones de un módulo, de solo lectura (D47): `explicacion`, las líneas de `records explain` para el ' +
          'usuario `usuario` (por defecto, quien llama): permisos, ámbito con sus valores, campos que no lee ni escribe, ' +
          'valores al crear, conservación y cambios de estado de su rol; y `definicion`, el módulo tal como lo ve quien ' +
          'llama (como en GET /me/modulos), null si su rol no puede listarlo. No muestra valores de registros.' +
          `\n\n**Permiso necesario:** \`${permission}\`.`,
        security: 'bearer',
        permission,
        parameters: [
          {
            name: 'modulo',
            in: 'path',
            required: true,
            description: 'El módulo (su ruta); uno desconocido responde 404.',
            schema: { type: 'string' },
          },
          {
            name: 'usuario',
            in: 'query',
            required: false,
            description: 'Id de la cuenta activa que se explica; por defecto, la de quien llama. Una desconocida: 404.',
            schema: { type: 'string', example: exampleId(accounts.prefix) },
          },
        ],
        responses: {
          200: {
            description: 'La explicación y la definición',
            content: {
              schema: successEnvelope({
                type: 'object',
                required: ['modulo', 'usuario', 'explicacion', 'definicion'],
                properties: {
                  modulo: { type: 'string' },
                  usuario: { type: 'string', description: 'El id de la cuenta explicada.' },
                  explicacion: { type: 'array', items: { type: 'string' } },
                  definicion: { oneOf: [MODULE, { type: 'null' }] },
                },
              }),
              example: {
                success: true,
                data: {
                  modulo: 'objetos_perdidos',
                  usuario: exampleId(accounts.prefix),
                  explicacion: [
                    'Módulo objetos_perdidos, rol lector',
                    '  Permisos: objetos_perdidos.ver; sin crear, editar, eliminar, descifrar',
                  ],
                  definicion: null,
                },
              },
            },
          },
        },
        errors: ['BadRequest', 'Unauthorized', 'Forbidden', 'NotFound', 'TooManyRequests', 'InternalError'],
      },
    },
  }
}
