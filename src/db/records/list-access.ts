// Whether a reader may ask a list what it asks: the one decision of it, next to scopes and field
// rules, for every path that filters records (a list, the live feed, an export, whatever comes
// next). A reader without `{module}.descifrar` cannot filter by an encrypted field (D16), and
// nobody filters or sorts by a field they cannot read (D27): either would reveal it through the
// answers. Refused before anything is read.
import type { ModuleSpec } from '../../compile/types.js'
import { missingPermission } from '../../errors.js'
import { checkQueryReadable } from '../../records/field-rules.js'
import type { ListQuery } from '../../records/list-query.js'
import type { ReadOptions } from './types.js'

/** The part of a list's query access is decided on: what it filters by and sorts by. */
export type QueryAccess = Pick<ListQuery, 'filters' | 'sort'>

/**
 * 403 naming `{module}.descifrar` for a filter through a blind index by a reader who does not
 * reveal (D16); then 403 naming each field filtered or sorted by that the reader cannot read.
 * A null user (the command line's operator, the service itself) has no role: neither applies.
 */
export function checkListAccess(
  spec: ModuleSpec,
  query: QueryAccess,
  { reveal, user }: Pick<ReadOptions, 'reveal' | 'user'>,
): void {
  if (user === null) return
  if (!reveal && query.filters.some((f) => f.blind)) throw missingPermission(spec.permissions.descifrar, user.role)
  checkQueryReadable(spec, user, query)
}
