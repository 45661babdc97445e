// The branches of an or-ed scope a plain list page must merge. A page of an or-ed
// scope merges its branches' indexes up to the page's offset (scope-sql.ts scopePageIds); at
// large offsets that merge costs twice the page itself. Often one branch adds nothing: an
// agente's new denuncia is assigned to them, so "created by me" holds no record that "assigned
// to me" lacks until someone reassigns one. Such a branch is left out of the page, which then
// reads one index. Whether a branch adds anything is asked of the database once per module
// generation (change-watch.ts): any write of the module asks again. The list reads the
// generation once per request and hands it here and to its total's cache (records/reads.ts).
import { sql, type Expression, type SqlBool } from 'kysely'
import type { ModuleSpec } from '../../compile/types.js'
import { META } from '../../compile/metadata.js'
import type { ResolvedScope } from '../../records/scope.js'
import type { Database } from '../database.js'
import { generationMemo, type GenerationMemo } from '../generation-memo.js'
import { scopeCondition } from './scope-sql.js'

type AnyScope = ResolvedScope & { kind: 'any' }

/**
 * The scope a plain page of `spec` may use in place of `scope`: the same records, with the
 * or-ed branches that hold no record of their own left out. Any other scope as it is.
 * `generation`: `spec`'s current generation as the caller read it (ChangeWatch.generation),
 * awaited only for an or-ed scope.
 */
export type PageScope = (
  spec: ModuleSpec,
  scope: ResolvedScope | undefined,
  generation: Promise<number>,
) => Promise<ResolvedScope | undefined>

export function createPageScope(database: Database): PageScope {
  const caches = new Map<string, GenerationMemo<readonly boolean[]>>()

  /** Whether a live record is in `branch` and in none of `others` (NULL counts as not in). */
  async function addsRecords(spec: ModuleSpec, branch: ResolvedScope, others: readonly ResolvedScope[]) {
    const options = { dialect: database.dialect, table: spec.table.name }
    const outside = (condition: Expression<SqlBool>) => sql<SqlBool>`(${condition}) is not true`
    const row = await database.db
      .selectFrom(spec.table.name)
      .select(sql<number>`1`.as('uno'))
      .where(META.deleted, 'is', null)
      .where((eb) => scopeCondition(eb, branch, options, true))
      .where((eb) => outside(scopeCondition(eb, { kind: 'any', of: others }, options, true)))
      .limit(1)
      .executeTakeFirst()
    return row !== undefined
  }

  /** Which branches stay, last first: each is kept only if it adds records to those still kept. */
  async function kept(spec: ModuleSpec, scope: AnyScope): Promise<readonly boolean[]> {
    const keep = scope.of.map(() => true)
    for (let i = scope.of.length - 1; i >= 0; i--) {
      const others = scope.of.filter((_, j) => j !== i && keep[j] === true)
      if (others.length === 0) break
      keep[i] = await addsRecords(spec, scope.of[i] as ResolvedScope, others)
    }
    return keep
  }

  return async (spec, scope, generation) => {
    if (scope?.kind !== 'any' || scope.of.length < 2) return scope
    const any = scope as AnyScope
    let cache = caches.get(spec.name)
    if (cache === undefined) caches.set(spec.name, (cache = generationMemo()))
    const keep = await cache(await generation, JSON.stringify(scope), () => kept(spec, any))
    const branches = any.of.filter((_, i) => keep[i] === true)
    // Still an or-ed scope of one branch: its page reads that branch's ids, as any id page does.
    return branches.length === any.of.length ? scope : { kind: 'any', of: branches }
  }
}
