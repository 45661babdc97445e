// How values cross into and out of each dialect's columns: the one place they differ.
import type { Dialect, StorageKind } from '../../compile/field-types.js'

interface Conversion {
  readonly toDb: (value: unknown) => unknown
  readonly fromDb: (value: unknown) => unknown
}
const same: Conversion = { toDb: (v) => v, fromDb: (v) => v }
const toNumber = (v: unknown) => (v === null || v === undefined ? v : Number(v))

export const VALUE_CONVERSIONS: Readonly<Record<Dialect, Readonly<Record<StorageKind, Conversion>>>> = {
  sqlite: {
    text: same,
    integer: same,
    real: same,
    boolean: { toDb: (v) => (v === true ? 1 : v === false ? 0 : v), fromDb: (v) => (v === null ? null : v === 1) },
    json: { toDb: (v) => JSON.stringify(v), fromDb: (v) => (typeof v === 'string' ? JSON.parse(v) : v) },
  },
  postgres: {
    text: same,
    integer: { toDb: (v) => v, fromDb: toNumber },
    real: { toDb: (v) => v, fromDb: toNumber },
    boolean: same,
    json: { toDb: (v) => JSON.stringify(v), fromDb: (v) => v },
  },
}
