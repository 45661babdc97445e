// Whether a reader may ask a list what it asks, for every path that filters records (a list, the
// live feed, an export, whatever comes next): records/query-access.ts decides it, the same rule
// GET /me/modulos offers by (D46). Refused before anything is read.
import type { ModuleSpec } from '../../compile/types.js'
import type { ListQuery } from '../../records/list-query.js'
import { checkQueryAccess, queryReader } from '../../records/query-access.js'
import type { ReadOptions } from './types.js'

/** The part of a list's query access is decided on: what it filters by and sorts by. */
export type QueryAccess = Pick<ListQuery, 'filters' | 'sort'>

/**
 * 403 naming `{module}.descifrar` for a filter through a blind index by a reader who does not
 * reveal (D16); then 403 naming each field filtered or sorted by that the reader cannot read (D27).
 * A null user (the command line's operator, the service itself) has no role: neither applies.
 */
export function checkListAccess(
  spec: ModuleSpec,
  query: QueryAccess,
  { reveal, user }: Pick<ReadOptions, 'reveal' | 'user'>,
): void {
  checkQueryAccess(spec, query, queryReader(spec, user?.role ?? null, reveal))
}
