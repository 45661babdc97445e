// The query parameters of a module's list and GET by id (D11, D16, D31, D33): what the docs page's
// Execute sends. No `example` on an optional parameter (Swagger UI would pre-fill it and filter every
// record out); examples live in the descriptions. The filters are one `filtros` object (form, explode):
// on the wire they are the plain `campo=valor` and `campo[op]=valor` keys, in the page one readable
// table instead of a parameter per field and operator.
import type { FilterOperator, JsonSchema } from '../compile/field-types.js'
import { FILTERABLE_META, SORTABLE_META } from '../compile/metadata.js'
import type { FieldSpec, ModuleSpec } from '../compile/types.js'
import { MAX_IN_VALUES } from '../records/list-query.js'
import { MAX_TEXT_QUERY_LENGTH, MAX_TEXT_QUERY_WORDS } from '../records/text-query.js'
import { exampleValue } from './examples.js'
import { ref, type OpenApiObject } from './route-contract.js'

/** What each operator means, for the filter table and the property descriptions. */
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

/** A filter's schema: the value schema's type, enum and format, as a query string carries it. */
function filterSchema(field: FieldSpec): JsonSchema {
  const keep = ['type', 'enum', 'format'] as const
  return Object.fromEntries(
    keep.filter((k) => field.valueSchema[k] !== undefined).map((k) => [k, field.valueSchema[k]]),
  )
}

interface FilterTarget {
  readonly name: string
  readonly operators: readonly FilterOperator[]
  readonly schema: JsonSchema
  /** What the value is, for the table and each key's description. */
  readonly note: string
}

function filterTargets(spec: ModuleSpec): FilterTarget[] {
  const fields = spec.fields
    .filter((f) => f.parseFilter !== null)
    .map((field) => ({
      name: field.name,
      operators: field.operators,
      schema: filterSchema(field),
      note: field.encrypted
        ? `cifrado, por su índice ciego: necesita \`${spec.permissions.descifrar}\` (sin él, 403; D16)`
        : field.def.enum === undefined
          ? field.label
          : `uno de ${field.def.enum.map((v) => `\`${String(v)}\``).join(', ')}`,
    }))
  const meta = FILTERABLE_META.map((m) => ({
    name: m.name,
    operators: m.operators,
    schema: { type: 'string' },
    note: `${m.description}; ${m.label}`,
  }))
  return [...fields, ...meta]
}

/** The keys of one target: `campo` (eq, D11) and `campo[op]` for each operator it allows. */
function filterKeys(target: FilterTarget): [string, JsonSchema][] {
  return target.operators.flatMap((op): [string, JsonSchema][] => {
    const schema = op === 'null' ? { type: 'boolean' } : op === 'in' ? { type: 'string' } : target.schema
    const entry = (key: string): [string, JsonSchema] => [
      key,
      { ...schema, description: `${OPERATOR_NOTES[op]} (${target.note})` },
    ]
    return op === 'eq' ? [entry(target.name), entry(`${target.name}[eq]`)] : [entry(`${target.name}[${op}]`)]
  })
}

const cell = (text: string): string => text.replace(/\|/g, '\\|')

/** One `filtros` parameter: every filter key a property, and a table a person can read (D11). */
function filtersParameter(spec: ModuleSpec): OpenApiObject {
  const targets = filterTargets(spec)
  const rows = targets.map((t) => `| \`${t.name}\` | ${t.operators.join(', ')} | ${cell(t.note)} |`)
  const sample = spec.fields.find((f) => f.parseFilter !== null && !f.encrypted && f.def.enum !== undefined)
  const sampleValue = sample === undefined ? undefined : exampleValue(sample)
  const [name, value] = [sample?.name ?? targets[0]?.name ?? 'campo', String(sampleValue ?? 'valor')]
  const pair = `${name}=${value}`
  const json = `${JSON.stringify(name)}: ${JSON.stringify(value)}`
  return {
    name: 'filtros',
    in: 'query',
    required: false,
    style: 'form',
    explode: true,
    description: [
      'Filtros combinados con AND (D11). En la URL cada uno es una clave suelta: `campo=valor` (igual a) o ' +
        `\`campo[op]=valor\`, p. ej. \`?${pair}&_created[gte]=2026-01-01\`. En esta página se escriben como un ` +
        `objeto JSON con esas claves, p. ej. \`{${json}, "_created[gte]": "2026-01-01"}\`; \`{}\` lista sin ` +
        'filtrar. Un campo o un operador que no está en la tabla: 400.',
      '| campo | operadores | valor |\n|---|---|---|\n' + rows.join('\n'),
      'Operadores: ' +
        (Object.entries(OPERATOR_NOTES) as [FilterOperator, string][])
          .map(([op, note]) => `\`${op}\` ${note}`)
          .join('; ') +
        '.',
    ].join('\n\n'),
    schema: {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(targets.flatMap(filterKeys)),
    },
    examples: {
      sin_filtros: { summary: 'Sin filtros: todos los registros que su rol ve', value: {} },
      ...(sample === undefined || sampleValue === undefined
        ? {}
        : {
            [sample.name]: {
              summary: `Solo ${sample.name} = ${String(sampleValue)}`,
              value: { [sample.name]: sampleValue },
            },
          }),
    },
  }
}

/** `fields=`: lists and GET by id. */
export const fieldsParameter = (spec: ModuleSpec): OpenApiObject => {
  const sample = spec.fields.filter((f) => !f.writeOnly).slice(0, 2)
  return {
    name: 'fields',
    in: 'query',
    required: false,
    description:
      'Campos del módulo que se devuelven, separados por comas; `_id` y los metadatos vienen siempre. ' +
      'Los cifrados que no se piden no se descifran. Un campo desconocido: 400; uno que el rol no puede leer ' +
      `no aparece (D31). Vacío: todos.${sample.length === 0 ? '' : ` P. ej. \`${sample.map((f) => f.name).join(',')}\`.`}`,
    schema: { type: 'string' },
  }
}

/** `?expand=` on a module with references: the ref fields and their targets. */
export function expandParameters(spec: ModuleSpec): OpenApiObject[] {
  const first = spec.references[0]
  if (first === undefined) return []
  const targets = spec.references.map((r) => `${r.field} → ${r.module}`).join(', ')
  return [
    {
      name: 'expand',
      in: 'query',
      required: false,
      description:
        `Campos de referencia, separados por comas, cuyo registro se incluye en lugar del id (${targets}), ` +
        `p. ej. \`${first.field}\`: con los permisos, el ámbito, las reglas de campo y el enmascarado del módulo ` +
        'de destino; un registro que quien llama no puede ver, o eliminado, queda como id.',
      schema: { type: 'string' },
    },
  ]
}

/** `q` where the module has searchable fields. */
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
        'palabra de alguno de ellos, sin distinguir mayúsculas ni acentos, p. ej. `daños calle mayor`. Ordena ' +
        `por relevancia salvo \`sort\`. Como máximo ${MAX_TEXT_QUERY_LENGTH} caracteres y ` +
        `${MAX_TEXT_QUERY_WORDS} palabras.`,
      schema: { type: 'string', minLength: 1, maxLength: MAX_TEXT_QUERY_LENGTH },
    },
  ]
}

/** The list's parameters: page, order, fields, text search, filters and expand. */
export function listParameters(spec: ModuleSpec): OpenApiObject[] {
  const sortable = [...spec.fields.filter((f) => f.sortable).map((f) => f.name), ...SORTABLE_META]
  const key = `-?(${sortable.join('|')})`
  const sample = sortable.length > 1 ? `-${sortable[0]},${sortable[1]}` : sortable[0]
  return [
    ref('parameters', 'limit'),
    ref('parameters', 'offset'),
    {
      name: 'sort',
      in: 'query',
      required: false,
      description:
        'Campos de orden separados por comas, por prioridad; con `-` delante, descendente, ' +
        `p. ej. \`${sample}\`. Sin él, orden de creación; los empates quedan en orden de creación (D11).`,
      schema: { type: 'string', pattern: `^${key}(,${key})*$` },
    },
    fieldsParameter(spec),
    ...textParameter(spec),
    filtersParameter(spec),
    ...expandParameters(spec),
  ]
}
