// GET /me/modulos (D46): the caller's view of each module it may list, as records/module-view.ts
// reads it from the rules the API enforces. What the console builds its lists and forms from.
import type { JsonSchema } from '../compile/field-types.js'
import { successEnvelope, type ContractFamily } from './route-contract.js'

export type ModuleViewRoute = 'myModules'

const strings: JsonSchema = { type: 'array', items: { type: 'string' } }

const FIELD: JsonSchema = {
  type: 'object',
  required: ['nombre', 'tipo', 'ayuda', 'requerido', 'lee', 'escribe', 'cifrado', 'ordenable', 'operadores'],
  properties: {
    nombre: { type: 'string' },
    tipo: { type: 'string' },
    ayuda: { type: 'string', description: 'El tipo del valor en palabras.' },
    descripcion: { type: 'string' },
    requerido: { type: 'boolean' },
    lee: { type: 'boolean', description: 'El rol lo recibe en sus respuestas.' },
    escribe: { type: 'boolean', description: 'El rol puede enviarlo en POST y PUT.' },
    cifrado: { type: 'boolean' },
    ordenable: { type: 'boolean' },
    operadores: strings,
    valores: strings,
    formato: { type: 'string' },
    modulo: { type: 'string', description: 'Solo en campos `ref`: el módulo al que apuntan.' },
  },
}

const WORKFLOW: JsonSchema = {
  type: 'object',
  required: ['campo', 'estados', 'inicial', 'finales', 'movimientos'],
  properties: {
    campo: { type: 'string' },
    estados: strings,
    inicial: strings,
    finales: strings,
    movimientos: {
      type: 'object',
      description:
        'Por estado de origen, los cambios de estado que el rol puede hacer y los campos que cada uno requiere.',
      additionalProperties: {
        type: 'array',
        items: {
          type: 'object',
          required: ['a', 'requiere'],
          properties: { a: { type: 'string' }, requiere: strings },
        },
      },
    },
  },
}

/** One module as one role sees it (records/module-view.ts). */
export const MODULE: JsonSchema = {
  type: 'object',
  required: ['nombre', 'descripcion', 'prefijo', 'acciones', 'busqueda', 'motivo', 'campos'],
  properties: {
    nombre: { type: 'string' },
    descripcion: { type: 'string' },
    prefijo: { type: 'string' },
    acciones: { ...strings, description: 'ver, crear, editar, eliminar, descifrar: las que el rol tiene.' },
    busqueda: { type: 'boolean', description: 'La lista admite `q`.' },
    motivo: { ...strings, description: 'Acciones (consultar, crear, editar, eliminar) que piden X-Motivo a este rol.' },
    campos: { type: 'array', items: FIELD },
    workflow: WORKFLOW,
  },
}

export const moduleViewContracts: ContractFamily<ModuleViewRoute> = {
  prefix: '',
  routes: {
    myModules: {
      operationId: 'my_modules',
      method: 'GET',
      url: '/me/modulos',
      tags: ['sesion'],
      summary: 'Módulos del usuario actual',
      description:
        'Los módulos que el rol del token puede listar, tal como ese rol los ve: campos que lee y escribe, tipos, ' +
        'valores, operadores de filtro, estados y cambios de estado permitidos, acciones que piden X-Motivo (D46). ' +
        'Se calcula con las mismas reglas que aplican las demás rutas; no concede nada.',
      security: 'bearer',
      responses: {
        200: {
          description: 'Los módulos visibles',
          content: {
            schema: successEnvelope({ type: 'array', items: MODULE }),
            example: {
              success: true,
              data: [
                {
                  nombre: 'objetos_perdidos',
                  descripcion: 'Objetos perdidos',
                  prefijo: 'OBP',
                  acciones: ['ver'],
                  busqueda: false,
                  motivo: [],
                  campos: [
                    {
                      nombre: 'lugar_hallazgo',
                      tipo: 'string',
                      ayuda: 'texto',
                      requerido: true,
                      lee: true,
                      escribe: true,
                      cifrado: false,
                      ordenable: true,
                      operadores: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'null'],
                    },
                  ],
                },
              ],
            },
          },
        },
      },
      errors: ['Unauthorized', 'Forbidden', 'TooManyRequests', 'InternalError'],
    },
  },
}
