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

/**
 * Whether an If-None-Match header names `etag` (D13): the weak comparison of RFC 9110 13.1.2,
 * so `W/"3"` names `"3"`; `*` names any current record.
 */
export function noneMatches(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false
  const value = Array.isArray(header) ? header.join(',') : header
  return value.split(',').some((tag) => {
    const trimmed = tag.trim()
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag
  })
}
