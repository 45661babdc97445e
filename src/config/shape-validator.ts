// The validator of modules.yaml's shape (schema/modules.schema.json): compiled by the build into
// standalone code (`npm run build` writes dist/src/config/modules-validator.cjs with
// `shapeValidatorSource`), else compiled here on first use. ajv compiled the schema in about 90 ms,
// a tenth of a first start (no validation kept in DATA_DIR yet, D39) and of every `records
// validate`; the built code loads in a few milliseconds and reports the same errors (verbose:
// each names its schema and parent schema, which schema-problems.ts words).
//
// The built file names the hash of the schema it was built from: a schema changed since the build
// (the sources run by the tests, or a build interrupted) is compiled here instead, never checked
// against an older shape.
import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { Ajv, type Options, type ValidateFunction } from 'ajv'
import standaloneModule from 'ajv/dist/standalone/index.js'
import addFormatsPlugin from 'ajv-formats'
import schema from '../../schema/modules.schema.json' with { type: 'json' }

const addFormats = addFormatsPlugin as unknown as (ajv: Ajv) => Ajv
// A CommonJS module whose module.exports is the function (typed as its `default`).
const standaloneCode = standaloneModule as unknown as typeof standaloneModule.default

/**
 * validateSchema: false: the schema is the project's own (tests compile it strictly); checking it
 * against the meta-schema cost a tenth of every start.
 */
const OPTIONS: Options = { allErrors: true, strict: true, allowUnionTypes: true, verbose: true, validateSchema: false }

/** An ajv with the validator's options and formats; `source`: keeping the code the build writes out. */
function shapeAjv(source = false): Ajv {
  const ajv = new Ajv(source ? { ...OPTIONS, code: { source: true } } : OPTIONS)
  addFormats(ajv)
  return ajv
}

/** The built validator's file name, in dist/src/config/. */
export const BUILT_VALIDATOR_FILE = 'modules-validator.cjs'

/** The hash of the schema as this program holds it: the built validator must name the same. */
export const schemaHash = (): string => createHash('sha256').update(JSON.stringify(schema)).digest('hex')

/** The standalone CommonJS module of the validator (the build writes it), naming the schema's hash. */
export function shapeValidatorSource(): string {
  const ajv = shapeAjv(true)
  return `${standaloneCode(ajv, ajv.compile(schema))}\nmodule.exports.schemaHash = ${JSON.stringify(schemaHash())};\n`
}

/**
 * Where the build puts it: beside this module in dist/src/config/, or from the bundle
 * (dist/src/app/serve.bundle.cjs, whose import.meta.url is the bundle's) one folder over.
 */
const builtUrl = () =>
  import.meta.url.endsWith('.cjs')
    ? new URL(`../config/${BUILT_VALIDATOR_FILE}`, import.meta.url)
    : new URL(`./${BUILT_VALIDATOR_FILE}`, import.meta.url)

/** The built validator when it exists and was built from this schema; undefined otherwise. */
export function builtValidator(url: URL = builtUrl()): ValidateFunction | undefined {
  let built: { default?: unknown; schemaHash?: unknown }
  try {
    built = createRequire(import.meta.url)(fileURLToPath(url)) as typeof built
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') return undefined
    throw error
  }
  return built.schemaHash === schemaHash() && typeof built.default === 'function'
    ? (built.default as ValidateFunction)
    : undefined
}

/** The schema compiled here, as a start without the built validator does. */
export const compiledValidator = (): ValidateFunction => shapeAjv().compile(schema)

let validator: ValidateFunction | undefined

/** The validator: the build's, else compiled on first use (a start that reuses its validation never asks). */
export const shapeValidator = (): ValidateFunction => (validator ??= builtValidator() ?? compiledValidator())
