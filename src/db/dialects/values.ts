// How values cross into and out of each dialect's columns: the one place they differ.
import type { Dialect, StorageKind } from '../../compile/field-types.js'

interface Conversion {
  readonly toDb: (value: unknown) => unknown
  readonly fromDb: (value: unknown) => unknown
}
const same: Conversion = { toDb: (v) => v, fromDb: (v) => v }
const toNumber = (v: unknown) => (v === null || v === undefined ? v : Number(v))

/**
 * Keys of JSON objects in code-unit order, the order canonicalJson hashes them in. PostgreSQL's
 * jsonb keeps its own order (shorter keys first), SQLite the order sent: both give this one, so
 * a record reads the same on either database, and the same from a write response as from a GET.
 */
function sortedKeys(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map(sortedKeys)
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return Object.fromEntries(entries.map(([k, v]) => [k, sortedKeys(v)]))
}

/**
 * A value bound for a jsonb column. `pg` sends it as JSON text (a bare array would go as a
 * PostgreSQL array), and the codec can still tell it from a value read back: `_hash` is
 * computed before the insert and must equal the hash of the row as stored (D17).
 */
class JsonParam {
  constructor(readonly value: unknown) {}
  toPostgres(): string {
    return JSON.stringify(this.value)
  }
}

export const VALUE_CONVERSIONS: Readonly<Record<Dialect, Readonly<Record<StorageKind, Conversion>>>> = {
  sqlite: {
    text: same,
    integer: same,
    real: same,
    boolean: { toDb: (v) => (v === true ? 1 : v === false ? 0 : v), fromDb: (v) => (v === null ? null : v === 1) },
    json: { toDb: (v) => JSON.stringify(v), fromDb: (v) => sortedKeys(typeof v === 'string' ? JSON.parse(v) : v) },
  },
  postgres: {
    text: same,
    integer: { toDb: (v) => v, fromDb: toNumber },
    real: { toDb: (v) => v, fromDb: toNumber },
    boolean: same,
    json: { toDb: (v) => new JsonParam(v), fromDb: (v) => sortedKeys(v instanceof JsonParam ? v.value : v) },
  },
}
