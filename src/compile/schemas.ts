// JSON Schemas of a module: create body, update body and record (response).
import type { FieldSpec, ModuleSchemas } from './types.js'
import { FIELD_TYPES, type JsonSchema } from './field-types.js'
import { INTEGRITY, MASK, META } from './metadata.js'

/** A field's schema in a request body: required ones cannot be empty; optional ones may be null. */
function bodySchemaOf(field: FieldSpec): JsonSchema {
  // A type's own description (a ref names its target) follows the field's.
  const own = field.valueSchema['description'] as string | undefined
  const description = [field.def.description, own].filter((d) => d !== undefined).join('. ')
  const base: JsonSchema = { ...field.valueSchema, ...(description === '' ? {} : { description }) }
  if (field.def.required) {
    return FIELD_TYPES[field.def.type].textual ? { ...base, minLength: Math.max(1, field.def.minLength ?? 1) } : base
  }
  const type = base['type']
  if (typeof type !== 'string') return base // mixed: anything, null included
  const enumValues = base['enum'] as readonly unknown[] | undefined
  return { ...base, type: [type, 'null'], ...(enumValues === undefined ? {} : { enum: [...enumValues, null] }) }
}

function recordSchemaOf(field: FieldSpec): JsonSchema {
  const body = bodySchemaOf({ ...field, def: { ...field.def, required: false } })
  // With ?expand= a reference reads as the target record, when the caller may see it.
  if (FIELD_TYPES[field.def.type].declaration.references)
    return {
      anyOf: [
        body,
        { type: 'object', description: `El registro de ${field.def.module ?? ''} (con ?expand=${field.name})` },
      ],
      description: body['description'],
    }
  if (!field.encrypted) return body
  return {
    anyOf: [body, { type: 'string', const: MASK }],
    description: `Cifrado en reposo; '${MASK}' sin el permiso descifrar.`,
  }
}

const metadataSchema: Readonly<Record<string, JsonSchema>> = {
  [META.created]: { type: 'string', description: 'AAAA-MM-DD HH:MM:SS' },
  [META.createdBy]: { type: 'string' },
  [META.modified]: { type: 'string', description: 'AAAA-MM-DD HH:MM:SS' },
  [META.modifiedBy]: { type: 'string' },
  [META.version]: { type: 'integer', minimum: 1 },
  [META.hash]: {
    type: 'string',
    description:
      'SHA-256 del registro almacenado (D17); falta, a quien no lee todos los campos en claro, en un registro sin _sal (escrito antes de existir)',
  },
}
/** Shown only to a reader of every field in clear (D17, F4). */
const saltSchema: JsonSchema = {
  type: 'string',
  description: 'Sal aleatoria del registro, incluida en _hash; solo para quien lee todos los campos en claro (D17)',
}

const SCALAR_TYPES = new Set(['string', 'integer', 'number', 'boolean'])

/** A field in a response serializer: its plain type when it has one, else untyped. */
function serializedSchemaOf(field: FieldSpec): JsonSchema {
  const type = field.valueSchema['type']
  // A reference may be expanded into its target record: untyped, written as JSON.stringify would.
  return field.encrypted ||
    FIELD_TYPES[field.def.type].declaration.references ||
    typeof type !== 'string' ||
    !SCALAR_TYPES.has(type)
    ? {}
    : { type: [type, 'null'] }
}

/** Properties in the order the codec writes them, so the text is the one JSON.stringify gave. */
function serializedRecordOf(readable: readonly FieldSpec[]): JsonSchema {
  const text = { type: 'string' }
  return {
    type: 'object',
    properties: {
      [META.id]: text,
      ...Object.fromEntries(readable.map((f) => [f.name, serializedSchemaOf(f)])),
      [META.created]: text,
      [META.createdBy]: text,
      [META.modified]: text,
      [META.modifiedBy]: text,
      [META.version]: { type: 'integer' },
      [META.hash]: text,
      [META.deleted]: text,
      [META.salt]: text,
      [INTEGRITY.marker]: text,
      [INTEGRITY.fields]: { type: 'array', items: text },
    },
  }
}

export function compileSchemas(fields: readonly FieldSpec[], prefix: string): ModuleSchemas {
  const writable = Object.fromEntries(fields.map((f) => [f.name, bodySchemaOf(f)]))
  const required = fields.filter((f) => f.def.required).map((f) => f.name)
  const readable = fields.filter((f) => !f.writeOnly)
  const serialized = serializedRecordOf(readable)
  const integer = { type: 'integer' }
  return {
    responses: {
      one: { type: 'object', properties: { success: { type: 'boolean' }, data: serialized } },
      list: {
        type: 'object',
        properties: {
          success: { type: 'boolean' },
          data: {
            type: 'object',
            properties: {
              records: { type: 'array', items: serialized },
              total: integer,
              limit: integer,
              offset: integer,
            },
          },
        },
      },
    },
    create: { type: 'object', additionalProperties: false, required, properties: writable },
    update: { type: 'object', additionalProperties: false, properties: writable },
    record: {
      type: 'object',
      required: [META.id, ...Object.keys(metadataSchema).filter((name) => name !== META.hash)],
      properties: {
        [META.id]: { type: 'string', pattern: `^${prefix}-[0-9]{4}-[0-9]{5,}$` },
        ...Object.fromEntries(readable.map((f) => [f.name, recordSchemaOf(f)])),
        ...metadataSchema,
        [META.salt]: saltSchema,
        [INTEGRITY.marker]: {
          type: 'string',
          const: INTEGRITY.failed,
          description: 'Solo si algún valor cifrado guardado no supera su comprobación: esos campos se leen como null.',
        },
        [INTEGRITY.fields]: { type: 'array', items: { type: 'string' }, description: 'Los campos afectados.' },
      },
    },
  }
}
