// fast-check arbitraries derived from a module's compiled JSON Schema (src/compile/schemas.ts):
// a module added to modules.yaml is fuzzed with no change here. Valid bodies first, then
// mutations of them that a careless or hostile client sends.
import fc from 'fast-check'
import type { ModuleSpec } from '../../../src/compile/types.js'

type Schema = Readonly<Record<string, unknown>>
const SHORT = 24

const pad = (n: number, width = 2) => String(n).padStart(width, '0')
const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate()

/** A real calendar date; February 29th only in leap years (D4). */
const calendarDate = fc
  .record({
    year: fc.integer({ min: 1900, max: 2199 }),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 31 }),
  })
  .map(({ year, month, day }) => `${year}-${pad(month)}-${pad(Math.min(day, daysIn(year, month)))}`)
const clock = fc.tuple(
  fc.integer({ min: 0, max: 23 }),
  fc.integer({ min: 0, max: 59 }),
  fc.integer({ min: 0, max: 59 }),
)
const formats: Record<string, fc.Arbitrary<string>> = {
  'calendar-date': calendarDate,
  'local-datetime': fc.tuple(calendarDate, clock).map(([d, [h, m, s]]) => `${d} ${pad(h)}:${pad(m)}:${pad(s)}`),
  'hour-minute': clock.map(([h, m]) => `${pad(h)}:${pad(m)}`),
  email: fc
    .tuple(fc.stringMatching(/^[a-z][a-z0-9.]{0,10}[a-z0-9]$/), fc.stringMatching(/^[a-z]{1,10}\.(es|com|org)$/))
    .map(([u, d]) => `${u}@${d}`),
  uri: fc.webUrl(),
}

/** Text of every kind a person types, emoji and accents included (well-formed UTF-16). */
const text = (minLength: number, maxLength: number) =>
  fc.oneof(
    fc.string({ minLength, maxLength, unit: 'grapheme' }),
    fc.string({ minLength, maxLength, unit: 'grapheme-ascii' }),
    fc
      .constantFrom(
        'ñandú',
        'Ñ',
        'Iñaki Núñez-Ó\u2019Brien',
        '🚓🚨',
        '\u202eRTL',
        'a\u0000b',
        "O'Reilly; DROP TABLE x;--",
      )
      .filter((s) => s.length >= minLength && s.length <= maxLength),
  )

const number = (key: 'minimum' | 'maximum', schema: Schema, fallback: number): number =>
  typeof schema[key] === 'number' ? (schema[key] as number) : fallback

/** A value the schema accepts. */
export function valueOf(schema: Schema): fc.Arbitrary<unknown> {
  if (Array.isArray(schema['anyOf'])) return fc.oneof(...(schema['anyOf'] as Schema[]).map(valueOf))
  const types = schema['type'] === undefined ? [] : ([] as unknown[]).concat(schema['type'])
  if (types.includes('null') && types.length > 1)
    return fc.option(valueOf({ ...schema, type: types.find((t) => t !== 'null') }), { nil: null, freq: 5 })
  if (Array.isArray(schema['enum'])) return fc.constantFrom(...(schema['enum'] as unknown[]))
  switch (types[0]) {
    case 'string': {
      const format = typeof schema['format'] === 'string' ? formats[schema['format']] : undefined
      if (format !== undefined) return format
      if (typeof schema['pattern'] === 'string') return fc.stringMatching(new RegExp(schema['pattern']))
      const min = number('minimum', { minimum: schema['minLength'] }, 0)
      return text(min, Math.max(min, Math.min(number('maximum', { maximum: schema['maxLength'] }, SHORT), SHORT)))
    }
    case 'integer': {
      const min = number('minimum', schema, Number.MIN_SAFE_INTEGER)
      const max = number('maximum', schema, Number.MAX_SAFE_INTEGER)
      return fc.oneof(
        fc.constantFrom(min, max, Math.max(min, Math.min(max, 0))),
        fc.maxSafeInteger().filter((n) => n >= min && n <= max),
      )
    }
    case 'number':
      return fc.double({
        noNaN: true,
        noDefaultInfinity: true,
        min: number('minimum', schema, -1e15),
        max: number('maximum', schema, 1e15),
      })
    case 'boolean':
      return fc.boolean()
    case 'array':
      return fc.array(fc.oneof(fc.string({ maxLength: SHORT }), fc.jsonValue({ maxDepth: 2 })), { maxLength: 5 })
    default:
      return fc.jsonValue({ maxDepth: 3 }) // mixed: any JSON value
  }
}

export interface BodyCase {
  readonly label: string
  /** Parsed body (sent as JSON), or raw JSON text when a JSON value cannot express it. */
  readonly body?: Record<string, unknown>
  readonly raw?: string
}

const properties = (schema: Schema) => schema['properties'] as Readonly<Record<string, Schema>>

/** A body the create schema accepts: every required field and some optional ones. */
export function validBody(spec: ModuleSpec): fc.Arbitrary<Record<string, unknown>> {
  const schema = spec.schemas.create
  const model = Object.fromEntries(Object.entries(properties(schema)).map(([name, s]) => [name, valueOf(s)]))
  return fc.record(model, { requiredKeys: [...(schema['required'] as string[])] }) as fc.Arbitrary<
    Record<string, unknown>
  >
}

/** Values no schema field accepts as they are, or accepts only at its edges. */
const junk: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    0,
    -0,
    1e308,
    -1e308,
    5e-324,
    2 ** 53,
    -(2 ** 53),
    0.1 + 0.2,
    true,
    false,
    '',
    ' ',
    '***',
    [],
    {},
    [[[[]]]],
    '2026-02-30',
    '2026-02-29',
    '2026-13-01',
    '2026-00-10',
    '2026-11-20T10:00:00',
    '2026-11-20 24:00:00',
    '2026-11-20 23:59:60',
    '24:00',
    '7:5',
    '\ud800',
    'a\udfffb',
    '\u0000',
    '🚓'.repeat(500),
    'x'.repeat(100_001),
    { $gt: '' },
    { toString: 'x' },
    'null',
    'NaN',
    "' OR '1'='1",
    '1; DROP TABLE denuncias; --',
    '"); DELETE FROM _audit; --',
  ),
  fc.jsonValue({ maxDepth: 6 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer(),
  fc.double(),
)

/** Raw JSON that a JavaScript object cannot hold: prototype keys and numbers beyond a double. */
const rawJunk = (valid: Record<string, unknown>, field: string): fc.Arbitrary<BodyCase> => {
  const inner = JSON.stringify(valid).slice(1, -1)
  const glue = inner === '' ? '' : ','
  return fc.constantFrom(
    { label: '__proto__ key', raw: `{${inner}${glue}"__proto__":{"isAdmin":true}}` },
    { label: 'constructor.prototype key', raw: `{${inner}${glue}"constructor":{"prototype":{"rol":"superadmin"}}}` },
    { label: 'nested __proto__', raw: `{${inner}${glue}"${field}":{"__proto__":{"x":1}}}` },
    { label: 'number beyond a double', raw: `{${inner}${glue}"${field}":1e400}` },
    { label: 'integer beyond 2^53', raw: `{${inner}${glue}"${field}":9007199254740993}` },
    { label: 'duplicate key', raw: `{${inner}${glue}"${field}":1,"${field}":"dos"}` },
    { label: 'trailing garbage', raw: `{${inner}}}` },
    { label: 'deep nesting', raw: `{"${field}":${'['.repeat(5000)}${']'.repeat(5000)}}` },
  )
}

/** A valid body, then one mutation of it (or none). */
export function bodyCase(spec: ModuleSpec): fc.Arbitrary<BodyCase> {
  const names = Object.keys(properties(spec.schemas.create))
  const required = spec.schemas.create['required'] as string[]
  return validBody(spec).chain((valid) => {
    const field = fc.constantFrom(...names)
    return fc.oneof(
      { weight: 3, arbitrary: fc.constant({ label: 'valid', body: valid }) },
      {
        weight: 3,
        arbitrary: fc.tuple(field, junk).map(([f, v]) => ({ label: `junk in ${f}`, body: { ...valid, [f]: v } })),
      },
      {
        weight: 1,
        arbitrary:
          required.length === 0
            ? fc.constant({ label: 'valid', body: valid })
            : fc.constantFrom(...required).map((f) => {
                const { [f]: _gone, ...rest } = valid
                return { label: `without ${f}`, body: rest }
              }),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(fc.string({ maxLength: 12 }), junk)
          .map(([k, v]) => ({ label: `unknown key ${k}`, body: { ...valid, [k]: v } })),
      },
      {
        weight: 1,
        arbitrary: fc
          .constantFrom('_id', '_version', '_hash', '_created', '_created_by', '_deleted', '_row')
          .map((k) => ({
            label: `metadata ${k}`,
            body: { ...valid, [k]: k === '_version' || k === '_row' ? 999 : 'X-2026-99999' },
          })),
      },
      { weight: 1, arbitrary: field.chain((f) => rawJunk(valid, f)) },
    )
  })
}
