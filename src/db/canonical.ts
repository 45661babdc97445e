// Canonical JSON (keys sorted at every depth) and SHA-256: the basis of `_hash` (D17)
// and of the audit chain (D18).
import { hash } from 'node:crypto'
import { randomBytesPooled } from './random-pool.js'

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null)
  if (Array.isArray(value))
    return onlyStrings(value) ? JSON.stringify(value) : `[${value.map(canonicalJson).join(',')}]`
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`
}

/**
 * Whether every element is a string (a hole is not) and the array has no `toJSON` (its own or
 * inherited): then JSON.stringify writes the array exactly as element-by-element canonicalJson
 * does, in a fraction of the time. A page's consultation entry hashes its hundred ids this way (D18).
 */
function onlyStrings(values: readonly unknown[]): boolean {
  if ('toJSON' in values) return false
  for (let i = 0; i < values.length; i++) if (typeof values[i] !== 'string') return false
  return true
}

/** One-shot `crypto.hash` (Node >= 20.12): half the cost of createHash for short texts. */
export const sha256Hex = (text: string): string => hash('sha256', text, 'hex')

/** The text a scalar is encrypted and blind-indexed as: strings as they are, the rest as JSON. */
export const plaintextOf = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value))

/**
 * A new record's salt (`_sal`, F4): 16 random bytes in hex, inside what `_hash` covers, so that
 * `_hash` confirms no guess of a value to a caller who is not shown the salt (D17).
 */
export const newRecordSalt = (): string => randomBytesPooled(16).toString('hex')
