// The routes of one module (API reference 4.4-4.8, D13, D25, D33): built from the module's
// route specs (compile/module.ts: method, path, permission) and its schemas. The request bodies
// are validated by the compiled schemas and published as components that also list what the
// service accepts and ignores (openapi/module-schemas.ts); success answers are written with
// the module's response serializers.
import type { ModuleSpec, RouteOperation, RouteSpec, ServiceSpec } from '../compile/types.js'
import { createExample, exampleId, recordExample, updateExample } from './examples.js'
import { expandParameters, fieldsParameter, listParameters } from './list-parameters.js'
import {
  CHANGE_ERRORS,
  lazily,
  messageData,
  ref,
  successEnvelope,
  type ContractFamily,
  type ErrorResponseName,
  type ResponseContract,
  type RouteContract,
} from './route-contract.js'
import { scopeNote } from './scope-note.js'
import { componentName, moduleComponentNames, type ModuleNames } from './component-names.js'
import { historyEntrySchema, historyExample } from './record-history.js'
import { idParameter, ifMatch, ifNoneMatch, versionParameter } from './record-parameters.js'

const SUMMARIES: Readonly<Record<RouteOperation, string>> = {
  list: 'Listar',
  get: 'Consultar',
  history: 'Historial de',
  create: 'Crear en',
  update: 'Modificar en',
  remove: 'Eliminar de',
}

const DESCRIPTIONS: Readonly<Record<RouteOperation, string>> = {
  list:
    'Registros no eliminados, en orden de creación salvo `sort`; filtros `campo=valor` o `campo[op]=valor` ' +
    'combinados con AND (D11).',
  get:
    'El registro completo, o los campos de `fields`; la cabecera ETag lleva su `_version` (D13). ' +
    'Con `version`, el registro tal como era en esa versión, sin ETag (D33).',
  history:
    'Entradas de auditoría del registro, también si está eliminado (D25); las de una escritura, con los valores anterior y nuevo de cada campo que cambió, enmascarados como el registro (D33).',
  create: 'Los metadatos (`_id`, `_created`, `_version`…) los genera el servicio; si se envían se ignoran (D7).',
  update:
    'Cambia solo los campos enviados; `null` vacía un campo opcional. Con If-Match, 409 si la versión no coincide (D13).',
  remove: 'Borrado lógico: el registro desaparece de las lecturas y se conserva para auditoría (D10).',
}

interface OperationContext {
  readonly spec: ModuleSpec
  readonly names: ModuleNames
  /** The example record, built when the document asks for it (see `lazily`). */
  readonly record: () => Record<string, unknown>
  /** The accounts module: its PUT also resets second factors (D42). */
  readonly accounts: boolean
}

const FACTOR_RESET_NOTE =
  'En cuentas, un cuerpo `{"segundo_factor": null}` (solo) quita los segundos factores y los códigos de ' +
  'recuperación de la cuenta y cierra sus sesiones; la cuenta no cambia (D42).'

function successOf(route: RouteSpec, { names, record, spec }: OperationContext): Record<number, ResponseContract> {
  const recordRef = ref('schemas', names.record)
  const { one, list } = spec.schemas.responses
  switch (route.operation) {
    case 'list':
      return {
        200: {
          description: 'Una página de registros',
          content: {
            schema: successEnvelope({
              type: 'object',
              required: ['records', 'total', 'limit', 'offset'],
              properties: {
                records: { type: 'array', items: recordRef },
                total: { type: 'integer' },
                limit: { type: 'integer' },
                offset: { type: 'integer' },
              },
            }),
            get example() {
              return { success: true, data: { records: [record()], total: 1, limit: 100, offset: 0 } }
            },
          },
          serializer: list,
        },
      }
    case 'history':
      return {
        200: {
          description: 'Entradas de auditoría del registro',
          content: {
            schema: successEnvelope({
              type: 'object',
              required: ['entries'],
              properties: { entries: { type: 'array', items: historyEntrySchema } },
            }),
            get example() {
              return { success: true, data: { entries: [historyExample(spec)] } }
            },
          },
        },
      }
    case 'create':
      return {
        201: {
          description: 'Registro creado',
          headers: ['etag'],
          content: {
            schema: successEnvelope(recordRef),
            get example() {
              return { success: true, data: record() }
            },
          },
          serializer: one,
        },
      }
    case 'remove':
      return {
        200: {
          description: 'Registro eliminado',
          content: {
            schema: successEnvelope(messageData),
            example: { success: true, data: { message: 'Registro eliminado' } },
          },
        },
      }
    default: {
      const answer: ResponseContract = {
        description: route.operation === 'get' ? `Un registro de ${spec.name}` : 'Registro modificado',
        headers: ['etag'],
        content: {
          schema: successEnvelope(recordRef),
          get example() {
            return { success: true, data: record() }
          },
        },
        serializer: one,
      }
      if (route.operation !== 'get') return { 200: answer }
      const unchanged = { description: 'Sin cambios desde la versión de If-None-Match (D13); sin cuerpo' }
      return { 200: answer, 304: { ...unchanged, headers: ['etag'] } }
    }
  }
}

const ERRORS: Readonly<Record<RouteOperation, readonly ErrorResponseName[]>> = {
  list: ['BadRequest', 'Unauthorized', 'Forbidden', 'TooManyRequests', 'InternalError'],
  get: ['BadRequest', 'Unauthorized', 'Forbidden', 'NotFound', 'TooManyRequests', 'InternalError'],
  history: ['Unauthorized', 'Forbidden', 'NotFound', 'TooManyRequests', 'InternalError'],
  create: [
    'BadRequest',
    'Unauthorized',
    'Forbidden',
    'Conflict',
    'TooLarge',
    'UnsupportedMediaType',
    'TooManyRequests',
    'InternalError',
  ],
  update: CHANGE_ERRORS,
  remove: ['Unauthorized', 'Forbidden', 'NotFound', 'Conflict', 'TooManyRequests', 'InternalError'],
}

function contractOf(route: RouteSpec, context: OperationContext): RouteContract {
  const { spec, names } = context
  // The parameters and examples are for the document only: built when it reads them, not at start.
  const parameters = lazily(() => [
    ...(route.url.includes(':id') ? [idParameter(spec)] : []),
    ...(route.operation === 'update' || route.operation === 'remove' ? [ifMatch] : []),
    ...(route.operation === 'list' ? listParameters(spec) : []),
    ...(route.operation === 'get'
      ? [fieldsParameter(spec), versionParameter, ...expandParameters(spec), ifNoneMatch]
      : []),
  ])
  const body =
    route.operation === 'create'
      ? {
          schema: ref('schemas', names.create),
          validates: spec.schemas.create,
          example: lazily(() => createExample(spec)),
        }
      : route.operation === 'update'
        ? {
            schema: ref('schemas', names.update),
            validates: spec.schemas.update,
            example: lazily(() => updateExample(spec)),
          }
        : undefined
  return {
    operationId: `${route.operation}_${componentName(spec.name)}`,
    method: route.method,
    url: route.url,
    tags: [spec.name],
    summary: `${SUMMARIES[route.operation]} ${spec.name}`,
    description: [
      DESCRIPTIONS[route.operation],
      ...(route.operation === 'update' && context.accounts ? [FACTOR_RESET_NOTE] : []),
      `**Permiso necesario:** \`${route.permission}\`.`,
      ...(route.operation === 'create' ? [] : [scopeNote(spec) ?? []].flat()),
      ...[blockedNote(spec, route.operation) ?? []].flat(),
    ].join('\n\n'),
    security: 'bearer',
    permission: route.permission,
    get parameters() {
      return parameters()
    },
    ...(body === undefined
      ? {}
      : {
          body: {
            schema: body.schema,
            validates: body.validates,
            get example() {
              return body.example()
            },
          },
        }),
    responses: successOf(route, context),
    errors: ERRORS[route.operation],
  }
}

/** The routes of one module, registered under `/{module}`; examples name the first account as actor. */
export function recordContracts(spec: ModuleSpec, service: ServiceSpec): ContractFamily<RouteOperation> {
  const actorId = exampleId(service.accounts.spec.prefix)
  const record = lazily(() => recordExample(spec, actorId))
  const accounts = spec === service.accounts.spec
  const context: OperationContext = { spec, names: moduleComponentNames(spec), record, accounts }
  return {
    prefix: `/${spec.name}`,
    routes: Object.fromEntries(spec.routes.map((route) => [route.operation, contractOf(route, context)])) as Record<
      RouteOperation,
      RouteContract
    >,
  }
}

/** D41: what a blocked record answers on this operation; undefined where records cannot be blocked. */
function blockedNote(spec: ModuleSpec, operation: RouteOperation): string | undefined {
  if (spec.retention === undefined || operation === 'create') return undefined
  const head = '**Registros bloqueados** (D41):'
  if (operation === 'list') return `${head} no aparecen en la lista, su total ni sus búsquedas, para nadie.`
  if (operation === 'update' || operation === 'remove')
    return `${head} 403 \`Registro bloqueado\` para todos, hasta que se desbloqueen.`
  return `${head} 403 \`Registro bloqueado\`, salvo a un rol con \`${spec.permissions.bloqueados}\` que indique el motivo (cabecera X-Motivo; 400 sin él).`
}
