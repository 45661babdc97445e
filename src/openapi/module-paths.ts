// The paths of one module (API reference 4.4-4.8, D13, D25): operations built from the route specs and
// the JSON Schemas that validate request bodies, widened to what the service accepts and ignores.
import type { FilterOperator, JsonSchema } from '../compile/field-types.js'
import { MAX_IN_VALUES } from '../records/list-query.js'
import { MAX_TEXT_QUERY_LENGTH, MAX_TEXT_QUERY_WORDS } from '../records/text-query.js'
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
    'El registro tal como era en esa versión (D33); 404 `Versión del registro no encontrada` si no la tuvo o no se guardó.',
  schema: { type: 'integer', minimum: 1 },
  example: 1,
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

/** What each operator means, for the parameter descriptions (issue #16). */
const OPERATOR_NOTES: Readonly<Record<FilterOperator, string>> = {
  eq: 'igual a',
  ne: 'distinto de (incluye los registros sin valor)',
  gt: 'mayor que',
  gte: 'mayor o igual que',
  lt: 'menor que',
  lte: 'menor o igual que',
  in: `uno de los valores separados por comas (\`\\,\` es una coma literal; como máximo ${MAX_IN_VALUES})`,
  null: '`true`: sin valor; `false`: con valor',
}

/** The parameters of one filterable target: `campo` (eq, D11) and `campo[op]` for each operator it allows. */
function operatorParameters(
  name: string,
  operators: readonly FilterOperator[],
  schema: JsonSchema,
  note: string,
): OpenApiObject[] {
  return operators.flatMap((op) => {
    const valueSchema = op === 'null' ? { type: 'boolean' } : op === 'in' ? { type: 'string' } : schema
    const entry = (key: string) => ({
      name: key,
      in: 'query',
      required: false,
      schema: valueSchema,
      description: `Filtro: ${OPERATOR_NOTES[op]}${note}`,
    })
    return op === 'eq' ? [entry(name), entry(`${name}[eq]`)] : [entry(`${name}[${op}]`)]
  })
}

function filterParameters(spec: ModuleSpec): OpenApiObject[] {
  const fields = spec.fields
    .filter((f) => f.parseFilter !== null)
    .flatMap((field) =>
      operatorParameters(
        field.name,
        field.operators,
        filterSchema(field),
        field.encrypted
          ? ` (campo cifrado, por su índice ciego: necesita \`${spec.permissions.descifrar}\`; sin él, 403; D16).`
          : ` (${field.label}).`,
      ),
    )
  const meta = FILTERABLE_META.flatMap((m) =>
    operatorParameters(m.name, m.operators, { type: 'string' }, ` (${m.description}; ${m.label}).`),
  )
  return [...fields, ...meta]
}

/** `fields=`: lists and GET by id (issue #16). */
const fieldsParameter = (spec: ModuleSpec): OpenApiObject => ({
  name: 'fields',
  in: 'query',
  required: false,
  description:
    'Campos del módulo que se devuelven, separados por comas; `_id` y los metadatos vienen siempre. ' +
    'Los cifrados que no se piden no se descifran. Un campo desconocido: 400; uno que el rol no puede leer ' +
    'no aparece (D31).',
  schema: { type: 'string' },
  example: spec.fields
    .filter((f) => !f.writeOnly)
    .slice(0, 2)
    .map((f) => f.name)
    .join(','),
})

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
  const key = `-?(${sortable.join('|')})`
  return [
    ref('parameters', 'limit'),
    ref('parameters', 'offset'),
    {
      name: 'sort',
      in: 'query',
      required: false,
      description:
        'Campos de orden separados por comas, por prioridad; con `-` delante, descendente. ' +
        'Los empates quedan en orden de creación (D11).',
      schema: { type: 'string', pattern: `^${key}(,${key})*$` },
      example: sortable.length > 1 ? `-${sortable[0]},${sortable[1]}` : sortable[0],
    },
    fieldsParameter(spec),
    ...textParameter(spec),
    ...filterParameters(spec),
  ]
}

/** `q` where the module has searchable fields (issue #16). */
function textParameter(spec: ModuleSpec): OpenApiObject[] {
  const searchable = spec.fields.filter((f) => f.def.searchable).map((f) => `\`${f.name}\``)
  if (searchable.length === 0) return []
  return [
    {
      name: 'q',
      in: 'query',
      required: false,
      description:
        `Búsqueda de texto en ${searchable.join(', ')} (los que su rol puede leer): cada palabra debe empezar una ` +
        'palabra de alguno de ellos, sin distinguir mayúsculas ni acentos. Ordena por relevancia salvo `sort`. ' +
        `Como máximo ${MAX_TEXT_QUERY_LENGTH} caracteres y ${MAX_TEXT_QUERY_WORDS} palabras.`,
      schema: { type: 'string', minLength: 1, maxLength: MAX_TEXT_QUERY_LENGTH },
      example: 'daños calle mayor',
    },
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
    ...(route.operation === 'get' ? [fieldsParameter(spec), versionParameter] : []),
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
