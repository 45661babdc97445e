// One demo value for a field: the data file's template when it names the field, else a value
// from the field's declaration (enum, examples, format, bounds, type), so any modules.yaml works.
import { randomBytes } from 'node:crypto'
import { formatTimestamp } from '../../compile/time.js'
import type { FieldSpec } from '../../compile/types.js'
import { renderTemplate, type DemoData } from './demo-data.js'
import type { Random } from './seeded-random.js'

export interface ValueContext {
  readonly data: DemoData
  readonly random: Random
  readonly module: string
  /** The value's number within its field, from 1: unique values use it. */
  readonly n: number
  readonly now: Date
  readonly timezone: string
  readonly roles: readonly string[]
  /** Live ids of a module, for references. */
  readonly idsOf: (module: string) => readonly string[]
}

const DAY_MS = 86_400_000

/** A moment in the last three years, in the service's time zone (D9). */
function pastStamp(context: ValueContext): string {
  const ago = context.random.int(1, 3 * 365 * 24 * 60) * 60_000
  return formatTimestamp(new Date(context.now.getTime() - ago - DAY_MS), context.timezone)
}

/** A password no one knows until it is printed: random whatever the seed (docs/operators.md). */
export const demoPassword = (): string => `${randomBytes(12).toString('base64url')}-Demo`

function fromTemplate(field: FieldSpec, context: ValueContext): unknown {
  const template = context.data.fields.get(`${context.module}.${field.name}`)
  if (template === undefined) return undefined
  const render = (t: string) => renderTemplate(context.data, t, context.random, context.n, context.now)
  if (typeof template === 'string') return field.def.type === 'array' ? [render(template)] : render(template)
  const rendered = template.map(render)
  if (field.def.type !== 'array') return context.random.pick(rendered)
  return [...new Set(rendered.slice(0, context.random.int(1, rendered.length)))]
}

function numberIn(field: FieldSpec, context: ValueContext, decimals: number): number {
  const min = field.def.minimum ?? 0
  const max = field.def.maximum ?? Math.max(min + 500, 500)
  const value = min + context.random.next() * (max - min)
  return decimals === 0 ? Math.round(value) : Math.round(value * 100) / 100
}

function fromDeclaration(field: FieldSpec, context: ValueContext): unknown {
  const { def } = field
  const { random, n } = context
  if (def.enum !== undefined && def.enum.length > 0) return random.pick(def.enum)
  switch (def.type) {
    case 'string': {
      if (def.examples !== undefined && def.examples.length > 0 && !def.unique) return random.pick(def.examples)
      if (def.format === 'email') return `persona${n}@example.org`
      if (def.format === 'uri') return `https://example.org/documentos/${n}`
      const text = `${field.label} ${n}`
      return def.maxLength === undefined ? text : text.slice(-def.maxLength)
    }
    case 'text':
      return `${field.label}: texto de demostración ${n}.`
    case 'integer':
      return numberIn(field, context, 0)
    case 'decimal':
      return numberIn(field, context, 2)
    case 'boolean':
      return typeof def.default === 'boolean' ? def.default : random.chance(0.8)
    case 'date':
      return pastStamp(context).slice(0, 10)
    case 'datetime':
      return pastStamp(context)
    case 'time':
      return `${String(random.int(0, 23)).padStart(2, '0')}:${random.pick(['00', '15', '30', '45'])}`
    case 'ref': {
      const ids = def.module === undefined ? [] : context.idsOf(def.module)
      return ids.length === 0 ? undefined : random.pick(ids)
    }
    case 'role':
      return random.pick(context.roles)
    case 'password':
      return demoPassword()
    case 'array':
      return def.required ? [`${field.label} ${n}`] : undefined
    default:
      return def.required ? {} : undefined
  }
}

/** The field's demo value; undefined leaves it out of the record. */
export function demoValue(field: FieldSpec, context: ValueContext): unknown {
  return fromTemplate(field, context) ?? fromDeclaration(field, context)
}
