// If-Match: "<version>" for optimistic concurrency (D13).
import { validationFailed } from '../errors.js'

/** The version an If-Match header asks for; undefined when absent or `*`. */
export function parseIfMatch(header: string | string[] | undefined): number | undefined {
  if (header === undefined || header === '*') return undefined
  const value = Array.isArray(header) ? header.join(',') : header
  // Quotes come in pairs or not at all: `"1` is malformed, not version 1.
  const match = /^\s*(?:W\/)?(?:"(\d{1,15})"|(\d{1,15}))\s*$/.exec(value)
  if (match === null)
    throw validationFailed([{ field: 'If-Match', message: 'La cabecera If-Match debe ser "<versión>"' }])
  return Number(match[1] ?? match[2])
}

export const etagOf = (version: unknown): string => `"${String(version)}"`
