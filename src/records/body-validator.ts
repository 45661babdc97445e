// Request bodies of a module checked against its compiled schemas (D5, D7): metadata and
// masked values dropped, unknown fields and wrong types named, missing ones reported as
// 'Datos requeridos'. ajv's errors are worded in Spanish per field here.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import addFormatsPlugin from 'ajv-formats'
import { FORMATS } from '../compile/formats.js'
import { isMetadataKey, MASK } from '../compile/metadata.js'
import type { JsonSchema } from '../compile/field-types.js'
import type { ModuleSpec } from '../compile/types.js'
import { badJson, requiredMissing, validationFailed, type ErrorDetail } from '../errors.js'

export type Body = Record<string, unknown>

export interface BodyValidator {
  create(body: unknown): Body
  update(body: unknown): Body
}

const addFormats = addFormatsPlugin as unknown as (ajv: Ajv, formats: string[]) => Ajv

export function createBodyAjv(): Ajv {
  // The schemas are compiled from a validated modules.yaml: no need to check them against the meta-schema.
  const ajv = new Ajv({
    validateSchema: false,
    allErrors: true,
    strict: false,
    coerceTypes: false,
    useDefaults: false,
    removeAdditional: false,
    verbose: true,
  })
  addFormats(ajv, ['email', 'uri'])
  for (const [name, check] of Object.entries(FORMATS)) ajv.addFormat(name, { type: 'string', validate: check })
  return ajv
}

interface Problem extends ErrorDetail {
  readonly missing: boolean
}

function describe(spec: ModuleSpec, error: ErrorObject): Problem {
  const params = error.params as Record<string, unknown>
  const name = error.instancePath.split('/')[1] ?? ''
  const field = spec.fieldsByName.get(name)
  const required = field?.def.required === true
  const empty = error.data === null || error.data === ''
  switch (error.keyword) {
    case 'required': {
      const missing = String(params['missingProperty'])
      return { field: missing, message: `El campo '${missing}' es obligatorio`, missing: true }
    }
    case 'additionalProperties': {
      const unknown = String(params['additionalProperty'])
      return { field: unknown, message: `Campo desconocido '${unknown}'`, missing: false }
    }
    case 'enum': {
      const allowed = (params['allowedValues'] as unknown[]).filter((v) => v !== null).map(String)
      return { field: name, message: `El campo '${name}' debe ser uno de: ${allowed.join(', ')}`, missing: false }
    }
    case 'minLength':
      if (required && empty) return { field: name, message: `El campo '${name}' no puede estar vacío`, missing: true }
      return {
        field: name,
        message: `El campo '${name}' debe tener al menos ${String(params['limit'])} caracteres`,
        missing: false,
      }
    case 'type':
      if (required && empty) return { field: name, message: `El campo '${name}' es obligatorio`, missing: true }
      return {
        field: name,
        message: `El campo '${name}' debe ser de tipo ${field?.label ?? String(params['type'])}`,
        missing: false,
      }
    case 'format': {
      const format = String(params['format'])
      const expected =
        format === 'email'
          ? 'un correo electrónico válido'
          : format === 'uri'
            ? 'una URL válida'
            : `una ${field?.label ?? format} válida`
      return { field: name, message: `El campo '${name}' debe ser ${expected}`, missing: false }
    }
    case 'maxLength':
      return {
        field: name,
        message: `El campo '${name}' admite como máximo ${String(params['limit'])} caracteres`,
        missing: false,
      }
    case 'maxItems':
      return {
        field: name,
        message: `El campo '${name}' admite como máximo ${String(params['limit'])} elementos`,
        missing: false,
      }
    case 'minimum':
    case 'maximum':
      return {
        field: name,
        message: `El campo '${name}' debe ser ${error.keyword === 'minimum' ? '>=' : '<='} ${String(params['limit'])}`,
        missing: false,
      }
    case 'pattern':
      return { field: name, message: `El campo '${name}' no tiene el formato esperado`, missing: false }
    default:
      return { field: name, message: `El campo '${name}' no es válido`, missing: false }
  }
}

function report(spec: ModuleSpec, errors: readonly ErrorObject[]): never {
  const seen = new Set<string>()
  const problems = errors
    .map((e) => describe(spec, e))
    .filter((p) => !seen.has(p.message) && seen.add(p.message) !== undefined)
  const details = problems.map(({ field, message }) => ({ field, message }))
  throw problems.some((p) => p.missing) ? requiredMissing(details) : validationFailed(details)
}

/** Drops what a client may send but never applies: metadata (D7) and `***` on encrypted fields (D15). */
function clean(spec: ModuleSpec, body: Body): Body {
  const out: Body = {}
  for (const [key, value] of Object.entries(body)) {
    if (isMetadataKey(key)) continue
    if (value === MASK && spec.fieldsByName.get(key)?.encrypted === true) continue
    out[key] = value
  }
  return out
}

/** A JSON number beyond a double (1e400) parses to Infinity, which ajv's number type accepts. */
function checkFinite(spec: ModuleSpec, values: Body): void {
  const bad = Object.keys(values).filter((name) => typeof values[name] === 'number' && !Number.isFinite(values[name]))
  if (bad.length > 0)
    throw validationFailed(
      bad.map((name) => ({
        field: name,
        message: `El campo '${name}' debe ser de tipo ${spec.fieldsByName.get(name)?.label ?? 'número'}`,
      })),
    )
}

/** Half of a UTF-16 surrogate pair without its other half: JSON lets `"\ud800"` through. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/
/** Deepest nesting an array or mixed value may have: deeper JSON is junk, and recursion over it overflows. */
export const MAX_DEPTH = 32

/** What is wrong inside one value, walked without recursion (a 5000-deep array must not overflow the stack). */
function valueProblem(value: unknown): 'unicode' | 'depth' | undefined {
  const stack: [unknown, number][] = [[value, 0]]
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [current, depth] = item
    if (typeof current === 'string') {
      if (LONE_SURROGATE.test(current)) return 'unicode'
    } else if (current !== null && typeof current === 'object') {
      if (depth >= MAX_DEPTH) return 'depth'
      for (const [key, inner] of Object.entries(current)) {
        if (LONE_SURROGATE.test(key)) return 'unicode'
        stack.push([inner, depth + 1])
      }
    }
  }
  return undefined
}

/**
 * Text that is not valid Unicode cannot be stored as written: SQLite keeps UTF-8, where a lone
 * surrogate becomes U+FFFD, so the record would read back changed and fail nothing.
 */
function checkValues(values: Body): void {
  const details: ErrorDetail[] = []
  for (const [name, value] of Object.entries(values)) {
    const problem = valueProblem(value)
    if (problem === 'unicode')
      details.push({ field: name, message: `El campo '${name}' contiene caracteres Unicode no válidos` })
    if (problem === 'depth')
      details.push({
        field: name,
        message: `El campo '${name}' admite como máximo ${MAX_DEPTH} niveles de anidamiento`,
      })
  }
  if (details.length > 0) throw validationFailed(details)
}

function asObject(body: unknown, orMissing: () => never): Body {
  if (body === undefined) orMissing()
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badJson()
  return body as Body
}

/** Compiled on first use, once: a start compiles nothing it does not serve. */
function lazily(ajv: Ajv, schema: object): ValidateFunction {
  let compiled: ValidateFunction | undefined
  const validate = ((data: unknown) => {
    compiled ??= ajv.compile(schema)
    const ok = compiled(data)
    validate.errors = compiled.errors
    return ok
  }) as ValidateFunction
  return validate
}

/** The schemas a create and an update body must meet: the module's own, or those its route contracts name. */
export interface BodySchemas {
  readonly create: JsonSchema
  readonly update: JsonSchema
}

export function createBodyValidator(spec: ModuleSpec, ajv: Ajv, schemas: BodySchemas = spec.schemas): BodyValidator {
  const create = lazily(ajv, schemas.create)
  const update = lazily(ajv, schemas.update)
  const nothingSent = (): never => {
    throw requiredMissing([{ field: '', message: 'Envíe al menos un campo del registro' }])
  }
  return {
    create(body) {
      const values = clean(
        spec,
        asObject(body, () =>
          report(
            spec,
            spec.requiredFields.map((f) => ({
              keyword: 'required',
              instancePath: '',
              schemaPath: '',
              params: { missingProperty: f },
            })),
          ),
        ),
      )
      if (!create(values)) report(spec, create.errors ?? [])
      checkFinite(spec, values)
      checkValues(values)
      return values
    },
    update(body) {
      const values = clean(spec, asObject(body, nothingSent))
      if (Object.keys(values).length === 0) nothingSent() // D7: an update with no fields
      if (!update(values)) report(spec, update.errors ?? [])
      checkFinite(spec, values)
      checkValues(values)
      return values
    },
  }
}
