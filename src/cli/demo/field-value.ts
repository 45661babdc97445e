// One demo value for a field: the data file's template when it names the field, else a value
// from the field's declaration (enum, else its type's demo value: compile/field-types/), so any
// modules.yaml works.
import { randomBytes } from 'node:crypto'
import { FIELD_TYPES } from '../../compile/field-types.js'
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
  // A list field (its values are arrays) takes several of the template's values.
  const list = field.valueSchema['type'] === 'array'
  if (typeof template === 'string') return list ? [render(template)] : render(template)
  const rendered = template.map(render)
  if (!list) return context.random.pick(rendered)
  return [...new Set(rendered.slice(0, context.random.int(1, rendered.length)))]
}

function fromDeclaration(field: FieldSpec, context: ValueContext): unknown {
  const { def } = field
  if (def.enum !== undefined && def.enum.length > 0) return context.random.pick(def.enum)
  return FIELD_TYPES[def.type].demo(field, {
    n: context.n,
    random: context.random,
    pastStamp: () => pastStamp(context),
    roles: context.roles,
    idsOf: context.idsOf,
    password: demoPassword,
  })
}

/** The field's demo value; undefined leaves it out of the record. */
export function demoValue(field: FieldSpec, context: ValueContext): unknown {
  return fromTemplate(field, context) ?? fromDeclaration(field, context)
}
