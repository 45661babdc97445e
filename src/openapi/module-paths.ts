// The paths of one module (API reference 4.4-4.8, D13, D25): operations built from the route specs and
// the JSON Schemas that validate request bodies, widened to what the service accepts and ignores.
import type { JsonSchema } from '../compile/field-types.js'
import { FILTERABLE_META, MASK, SORTABLE_META } from '../compile/metadata.js'
import type { FieldSpec, ModuleSpec, RouteOperation, RouteSpec } from '../compile/types.js'
import { scopeNote } from './scope-note.js'
import { createExample, exampleId, recordExample, updateExample } from './examples.js'
import { commonHeaders, errorRefs, messageData, ref, successEnvelope, type OpenApiObject } from './responses.js'

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
  list: 'Registros no eliminados, en orden de creación salvo `sort`; filtros exactos combinados con AND (D11).',
  get: 'El registro completo; la cabecera ETag lleva su `_version` (D13).',
  history: 'Entradas de auditoría del registro, también si está eliminado (D25).',
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

const ifMatch: OpenApiObject = {
  name: 'If-Match',
  in: 'header',
  required: false,
  description: 'Versión esperada, `"<_version>"` (D13).',
  schema: { type: 'string' },
  example: '"1"',
}

/** A filter's schema: the value schema's type, enum and format, as a query string carries it. */
function filterSchema(field: FieldSpec): JsonSchema {
  const keep = ['type', 'enum', 'format'] as const
  return Object.fromEntries(
    keep.filter((k) => field.valueSchema[k] !== undefined).map((k) => [k, field.valueSchema[k]]),
  )
}

function filterParameters(spec: ModuleSpec): OpenApiObject[] {
  const fields = spec.fields
    .filter((f) => f.parseFilter !== null)
    .map((field) => ({
      name: field.name,
      in: 'query',
      required: false,
      schema: filterSchema(field),
      description: field.encrypted
        ? `Filtro exacto sobre un campo cifrado: necesita \`${spec.permissions.descifrar}\`; sin él, 403 (D16).`
        : `Filtro exacto (${field.label}).`,
    }))
  const meta = FILTERABLE_META.map((name) => ({
    name,
    in: 'query',
    required: false,
    schema: { type: 'string' },
    description: 'Filtro exacto por el id del usuario.',
  }))
  return [...fields, ...meta]
}

/** `?expand=` on a module with references (issue #16): the ref fields and their targets. */
function expandParameters(spec: ModuleSpec): OpenApiObject[] {
  if (spec.references.length === 0) return []
  const targets = spec.references.map((r) => `${r.field} → ${r.module}`).join(', ')
  return [
    {
      name: 'expand',
      in: 'query',
      required: false,
      description:
        `Campos de referencia, separados por comas, cuyo registro se incluye en lugar del id (${targets}): ` +
        'con los permisos, el ámbito, las reglas de campo y el enmascarado del módulo de destino; ' +
        'un registro que quien llama no puede ver, o eliminado, queda como id.',
      schema: { type: 'string' },
      example: spec.references[0]?.field,
    },
  ]
}

function listParameters(spec: ModuleSpec): OpenApiObject[] {
  const sortable = [...spec.fields.filter((f) => f.sortable).map((f) => f.name), ...SORTABLE_META]
  return [
    ref('parameters', 'limit'),
    ref('parameters', 'offset'),
    {
      name: 'sort',
      in: 'query',
      required: false,
      description: 'Campo de orden; con `-` delante, descendente (D11).',
      schema: { type: 'string', enum: sortable.flatMap((name) => [name, `-${name}`]) },
    },
    ...filterParameters(spec),
  ]
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
              properties: { entries: { type: 'array', items: ref('schemas', 'EntradaAuditoria') } },
            }),
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
    ...(route.operation === 'list' || route.operation === 'get' ? expandParameters(spec) : []),
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

/**
 * A body schema as the service accepts it (issue #13 item 6): the validating schema, plus what
 * the service drops before validating (D7, D15), so a client may send back what it read.
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
    properties,
    patternProperties: {
      '^_': { description: 'Metadatos (`_id`, `_version`, `_hash`…): se aceptan y se ignoran (D7).' },
    },
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
