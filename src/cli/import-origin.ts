// `records import --keep-origin`: a row's `_created` and `_created_by` from the legacy system,
// checked and kept as the record's creation metadata (D9, D18), so historic files keep their dates.
import { isDateTime } from '../compile/formats.js'
import { META } from '../compile/metadata.js'
import type { RecordOrigin } from '../db/records/types.js'

/** A kept author is not an account of this service: stored with this mark, never as a user id. */
export const LEGACY_AUTHOR_PREFIX = 'legado:'
const AUTHOR_MAX_LENGTH = 120

/** `legado:<author>`; an author already marked (a re-import of an export) keeps its one mark. */
export const legacyAuthor = (author: string): string =>
  author.startsWith(LEGACY_AUTHOR_PREFIX) ? author : `${LEGACY_AUTHOR_PREFIX}${author}`

/**
 * The origin a row carries, or why it cannot be kept: `_created` a real `YYYY-MM-DD HH:MM:SS` in
 * the service's time zone not after `now` (same format, so text order is time order); `_created_by`
 * free text of the legacy system (one line, at most 120 characters).
 */
export function originOf(body: unknown, now: string): { origin: RecordOrigin } | { problem: string } {
  const row = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {}
  const created = row[META.created]
  const author = typeof row[META.createdBy] === 'string' ? String(row[META.createdBy]).trim() : row[META.createdBy]
  if (created === undefined || created === '' || author === undefined || author === '')
    return { problem: `Con --keep-origin cada fila debe traer ${META.created} y ${META.createdBy}` }
  if (typeof created !== 'string' || !isDateTime(created))
    return { problem: `${META.created} debe ser una fecha y hora real AAAA-MM-DD HH:MM:SS` }
  if (created > now) return { problem: `${META.created} no puede ser posterior a este momento (${now})` }
  if (
    typeof author !== 'string' ||
    author.length > AUTHOR_MAX_LENGTH ||
    [...author].some((c) => c < ' ' || c === '\u007f')
  )
    return { problem: `${META.createdBy} debe ser un texto de una línea de hasta ${AUTHOR_MAX_LENGTH} caracteres` }
  return { origin: { created, createdBy: legacyAuthor(author) } }
}
