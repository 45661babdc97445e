// The paths of one module (API reference 4.4-4.8, D13, D25): operations built from the route specs and
// the JSON Schemas that validate request bodies, widened to what the service accepts and ignores.
import type { JsonSchema } from '../compile/field-types.js'
import { INTEGRITY, MASK, META } from '../compile/metadata.js'
import type { ModuleSpec, RouteOperation, RouteSpec } from '../compile/types.js'
import { expandParameters, fieldsParameter, listParameters } from '../contracts/list-parameters.js'
import { scopeNote } from '../contracts/scope-note.js'
import { createExample, exampleId, recordExample, updateExample } from '../contracts/examples.js'
import { messageData, ref, successEnvelope, type OpenApiObject } from '../contracts/route-contract.js'
import { commonHeaders, errorRefs } from './responses.js'

export interface ModuleNames {
  readonly record: string
  readonly create: string
  readonly update: string
}

/** Component names must match ^[a-zA-Z0-9._-]+$: accents and ñ are spelled out. */
export const componentName = (module: string): string =>
  module
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => `${part[0]?.toUpperCase() ?? ''}${part.slice(1)}`)
    .join('')

export const moduleComponentNames = (spec: ModuleSpec): ModuleNames => {
  const base = componentName(spec.name)
  return { record: `${base}Registro`, create: `${base}Alta`, update: `${base}Cambios` }
}

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

const idParameter = (spec: ModuleSpec): OpenApiObject => ({
  name: 'id',
  in: 'path',
  required: true,
  description: `Identificador \`${spec.prefix}-AAAA-NNNNN\` (D8).`,
  schema: { type: 'string', pattern: `^${spec.prefix}-[0-9]{4}-[0-9]{5,}$` },
  example: exampleId(spec.prefix),
})

const versionParameter: OpenApiObject = {
  name: 'version',
  in: 'query',
  required: false,
  description:
    'El registro tal como era en esa versión (D33), p. ej. `1`; 404 `Versión del registro no encontrada` si no la tuvo o no se guardó. Vacío: la actual.',
  schema: { type: 'integer', minimum: 1 },
}

/** What a write changed in one field, as the reader may see it (masked, D15). */
const changeSchema: JsonSchema = {
  type: 'object',
  required: ['old', 'new'],
  properties: {
    old: { description: 'Valor anterior (`null` al crear); `***` si el campo es cifrado y no se tiene descifrar.' },
    new: { description: 'Valor nuevo.' },
  },
}

/** One history entry: the audit chain entry, and for a write the values it changed (D33). */
const historyEntrySchema: JsonSchema = {
  allOf: [
    ref('schemas', 'EntradaAuditoria'),
    {
      type: 'object',
      properties: {
        changes: {
          type: 'object',
          description:
            'Solo en crear, importar, editar y eliminar: por campo cambiado, su valor anterior y nuevo. Sin los campos que el rol no puede leer.',
          additionalProperties: changeSchema,
        },
      },
    },
  ],
}

const ifMatch: OpenApiObject = {
  name: 'If-Match',
  in: 'header',
  required: false,
  description: 'Versión esperada, `"<_version>"`, p. ej. `"1"` (D13). Vacío: sin comprobar la versión.',
  schema: { type: 'string' },
}

const ifNoneMatch: OpenApiObject = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description:
    'ETag de la copia que ya tiene, `"<_version>"` (D13): 304 sin cuerpo si el registro sigue en esa versión.',
  schema: { type: 'string' },
}

const json = (schema: OpenApiObject | JsonSchema, example?: unknown): OpenApiObject => ({
  'application/json': { schema, ...(example === undefined ? {} : { example }) },
})

interface OperationContext {
  readonly spec: ModuleSpec
  readonly names: ModuleNames
  readonly record: Record<string, unknown>
}

function successOf(route: RouteSpec, { names, record, spec }: OperationContext): Record<string, OpenApiObject> {
  const recordRef = ref('schemas', names.record)
  switch (route.operation) {
    case 'list':
      return {
        200: {
          description: 'Una página de registros',
          headers: commonHeaders(),
          content: json(
            successEnvelope({
              type: 'object',
              required: ['records', 'total', 'limit', 'offset'],
              properties: {
                records: { type: 'array', items: recordRef },
                total: { type: 'integer' },
                limit: { type: 'integer' },
                offset: { type: 'integer' },
              },
            }),
            { success: true, data: { records: [record], total: 1, limit: 100, offset: 0 } },
          ),
        },
      }
    case 'history':
      return {
        200: {
          description: 'Entradas de auditoría del registro',
          headers: commonHeaders(),
          content: json(
            successEnvelope({
              type: 'object',
              required: ['entries'],
              properties: { entries: { type: 'array', items: historyEntrySchema } },
            }),
            {
              success: true,
              data: {
                entries: [
                  {
                    seq: 12,
                    at: '2026-11-23 10:15:02.114',
                    user_id: 'USR-2026-00001',
                    action: 'editar',
                    module: spec.name,
                    record_id: exampleId(spec.prefix),
                    version: 2,
                    record_hash: 'c0ffee…',
                    fields: [spec.fields[0]?.name ?? 'campo'],
                    prev_hash: '5eed…',
                    hash: 'beef…',
                    changes: { [spec.fields[0]?.name ?? 'campo']: { old: 'valor anterior', new: 'valor nuevo' } },
                  },
                ],
              },
            },
          ),
        },
      }
    case 'create':
      return {
        201: {
          description: 'Registro creado',
          headers: commonHeaders(['etag']),
          content: json(successEnvelope(recordRef), { success: true, data: record }),
        },
      }
    case 'remove':
      return {
        200: {
          description: 'Registro eliminado',
          headers: commonHeaders(),
          content: json(successEnvelope(messageData), { success: true, data: { message: 'Registro eliminado' } }),
        },
      }
    default:
      return {
        200: {
          description: route.operation === 'get' ? `Un registro de ${spec.name}` : 'Registro modificado',
          headers: commonHeaders(['etag']),
          content: json(successEnvelope(recordRef), { success: true, data: record }),
        },
        ...(route.operation === 'get'
          ? {
              304: {
                description: 'Sin cambios desde la versión de If-None-Match (D13); sin cuerpo',
                headers: commonHeaders(['etag']),
              },
            }
          : {}),
      }
  }
}

const ERRORS: Readonly<Record<RouteOperation, Parameters<typeof errorRefs>[0]>> = {
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
  update: [
    'BadRequest',
    'Unauthorized',
    'Forbidden',
    'NotFound',
    'Conflict',
    'TooLarge',
    'UnsupportedMediaType',
    'TooManyRequests',
    'InternalError',
  ],
  remove: ['Unauthorized', 'Forbidden', 'NotFound', 'Conflict', 'TooManyRequests', 'InternalError'],
}

function operation(route: RouteSpec, context: OperationContext): OpenApiObject {
  const { spec, names } = context
  const parameters = [
    ...(route.url.includes(':id') ? [idParameter(spec)] : []),
    ...(route.operation === 'update' || route.operation === 'remove' ? [ifMatch] : []),
    ...(route.operation === 'list' ? listParameters(spec) : []),
    ...(route.operation === 'get'
      ? [fieldsParameter(spec), versionParameter, ...expandParameters(spec), ifNoneMatch]
      : []),
  ]
  const body =
    route.operation === 'create'
      ? { name: names.create, example: createExample(spec) }
      : route.operation === 'update'
        ? { name: names.update, example: updateExample(spec) }
        : undefined
  return {
    operationId: `${route.operation}_${componentName(spec.name)}`,
    tags: [spec.name],
    summary: `${SUMMARIES[route.operation]} ${spec.name}`,
    description: [
      DESCRIPTIONS[route.operation],
      `**Permiso necesario:** \`${route.permission}\`.`,
      ...(route.operation === 'create' ? [] : [scopeNote(spec) ?? []].flat()),
    ].join('\n\n'),
    'x-permission': route.permission,
    security: [{ bearer: [] }],
    ...(parameters.length === 0 ? {} : { parameters }),
    ...(body === undefined
      ? {}
      : { requestBody: { required: true, content: json(ref('schemas', body.name), body.example) } }),
    responses: { ...successOf(route, context), ...errorRefs(ERRORS[route.operation]) },
  }
}

/** OpenAPI path template of a route relative to the base path: `/denuncias/{id}`. */
export const openApiPath = (prefix: string, url: string): string =>
  `${prefix}${url === '/' ? '' : url}`.replace(/:([A-Za-z_]+)/g, '{$1}')

/** The paths of one module, keyed by OpenAPI path then lower-case method. */
export function modulePaths(spec: ModuleSpec, actorId: string): Record<string, Record<string, OpenApiObject>> {
  const context: OperationContext = { spec, names: moduleComponentNames(spec), record: recordExample(spec, actorId) }
  const paths: Record<string, Record<string, OpenApiObject>> = {}
  for (const route of spec.routes) {
    const path = openApiPath(`/${spec.name}`, route.url)
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation(route, context) }
  }
  return paths
}

/** Metadata a body may carry back from a read: accepted and ignored (D7). */
const IGNORED_META: Readonly<Record<string, JsonSchema>> = Object.fromEntries(
  [...Object.values(META), INTEGRITY.marker, INTEGRITY.fields].map((key) => [
    key,
    { description: 'Metadato del registro leído: se acepta y se ignora (D7).' },
  ]),
)

/**
 * A body schema as the service accepts it (issue #13 item 6): the validating schema, plus what
 * the service drops before validating (D7, D15), so a client may send back what it read. The
 * metadata are named one by one rather than as a `^_` pattern, so that generated types keep
 * `additionalProperties: false` and a misspelled field does not compile (a typo is a 400, D7).
 */
function accepted(spec: ModuleSpec, schema: JsonSchema): JsonSchema {
  const properties = { ...(schema['properties'] as Record<string, JsonSchema>) }
  for (const field of spec.encryptedFields) {
    const own = properties[field.name]
    if (own !== undefined)
      properties[field.name] = {
        anyOf: [own, { const: MASK }],
        description: `'${MASK}' (el valor enmascarado que se leyó) deja el valor guardado sin cambios (D15).`,
      }
  }
  return {
    ...schema,
    description:
      'Un campo que el módulo no tiene: 400 `Datos inválidos` (D7). Los metadatos (claves que empiezan por `_`) ' +
      'se aceptan y se ignoran; los de un registro leído están listados.',
    properties: { ...properties, ...IGNORED_META },
    additionalProperties: false,
  }
}

/** The three schemas of a module: the record, and the bodies the service accepts. */
export function moduleSchemas(spec: ModuleSpec): Record<string, JsonSchema> {
  const names = moduleComponentNames(spec)
  return {
    [names.record]: {
      ...spec.schemas.record,
      ...(spec.def.description === undefined ? {} : { description: spec.def.description }),
    },
    [names.create]: accepted(spec, spec.schemas.create),
    [names.update]: accepted(spec, spec.schemas.update),
  }
}
