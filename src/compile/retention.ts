// A module's `retention:` (D41) compiled: its durations parsed and `from` resolved to what the
// due computation reads (records/retention-due.ts). Config rules have checked both.
import { describeDuration, durationText, parseDuration, type Duration } from '../config/duration.js'
import { STATE_FROM_PREFIX, type ModuleDef, type RetentionDef } from '../config/types.js'
import type { ReachWarning } from './reach.js'
import type { RetentionFromSpec, RetentionSpec, ServiceSpec } from './types.js'

const duration = (text: string): Duration => {
  const parsed = parseDuration(text)
  if (parsed === undefined) throw new Error(`duración no validada: ${text}`)
  return parsed
}

function compileFrom(def: ModuleDef, from: string): RetentionFromSpec {
  if (from === '_created') return { kind: 'created' }
  if (!from.startsWith(STATE_FROM_PREFIX)) return { kind: 'field', field: from }
  const field = def.fields.find((f) => f.state)?.name
  if (field === undefined) throw new Error(`${def.name}: 'from: ${from}' sin campo de estado`)
  return { kind: 'state', field, state: from.slice(STATE_FROM_PREFIX.length) }
}

/** Pure: a validated `retention:` in, its spec out. */
export function compileRetention(def: ModuleDef, retention: RetentionDef): RetentionSpec {
  return {
    basis: retention.basis,
    fromText: retention.from,
    from: compileFrom(def, retention.from),
    reviewEvery: duration(retention.reviewEvery),
    keepAtMost: retention.keepAtMost === undefined ? undefined : duration(retention.keepAtMost),
    onExpiry: retention.onExpiry,
  }
}

const EXPIRY_WORDS = {
  review: 'lo revisa una persona (retencion.decidir)',
  block: 'se bloquea',
  erase: 'se suprime',
} as const

/** Where the clock starts, in words. */
function describeFrom(from: RetentionFromSpec): string {
  if (from.kind === 'created') return 'su creación (_created)'
  if (from.kind === 'field') return `el campo ${from.field}`
  return `su entrada en el estado ${from.state} (${from.field})`
}

/** One sentence on a module's retention (D41), for `records explain` and the OpenAPI document. */
export function retentionNote(retention: RetentionSpec): string {
  const most =
    retention.keepAtMost === undefined ? '' : `; se conserva como máximo ${describeDuration(retention.keepAtMost)}`
  return (
    `Conservación (D41): desde ${describeFrom(retention.from)}, revisión cada ${describeDuration(retention.reviewEvery)}` +
    `${most}; al vencer, ${EXPIRY_WORDS[retention.onExpiry]}. Base: ${retention.basis}.`
  )
}

/** The module's `retention:` as written, for the OpenAPI document's `x-retencion` (D41). */
export function retentionDeclaration(retention: RetentionSpec): Readonly<Record<string, string>> {
  return {
    basis: retention.basis,
    from: retention.fromText,
    review_every: durationText(retention.reviewEvery),
    ...(retention.keepAtMost === undefined ? {} : { keep_at_most: durationText(retention.keepAtMost) }),
    on_expiry: retention.onExpiry,
  }
}

/**
 * `on_expiry: block` or `erase` without `keep_at_most` never applies: a periodic review always
 * waits for a person (D41). A warning of `records validate`, not an error: the module still works.
 */
export function retentionWarnings(service: ServiceSpec): ReachWarning[] {
  return service.modules.flatMap((m) =>
    m.retention !== undefined && m.retention.onExpiry !== 'review' && m.retention.keepAtMost === undefined
      ? [
          {
            module: m.name,
            message:
              `el módulo '${m.name}' declara 'on_expiry: ${m.retention.onExpiry}' sin 'keep_at_most': no se aplicará nunca, ` +
              `porque una revisión pendiente siempre espera a una persona (D41). Añada 'keep_at_most' o use 'on_expiry: review'.`,
          },
        ]
      : [],
  )
}
