// A module's `retention:` (D41) compiled: its durations parsed and `from` resolved to what the
// due computation reads (records/retention-due.ts). Config rules have checked both.
import { parseDuration, type Duration } from '../config/duration.js'
import { STATE_FROM_PREFIX, type ModuleDef, type RetentionDef } from '../config/types.js'
import type { RetentionFromSpec, RetentionSpec } from './types.js'

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
