// References between modules, inside the write's transaction: a write names
// only live targets (locked FOR SHARE on PostgreSQL until commit), and a delete of a target
// that live records still reference is refused (the target is locked FOR UPDATE by the delete,
// so the two cannot both pass). Existence is checked regardless of the writer's scope in the
// target module (D35).
import { META } from '../../compile/metadata.js'
import type { ModuleSpec, ReferenceSpec } from '../../compile/types.js'
import { referenceNotFound, stillReferenced, type Referrer } from '../../errors.js'
import type { Database, Db, Row } from '../database.js'
import { preparedPerModule } from '../prepared.js'

/** How many referencing ids a 409 names per field. */
export const REFERRERS_SHOWN = 5

export interface ReferenceChecks {
  /** Throws 400 naming the first field whose value is no live record of its target module. */
  checkTargets(trx: Db, spec: ModuleSpec, values: readonly Row[]): Promise<void>
  /** Throws 409 naming who references `id` through fields that restrict its deletion. */
  checkUnreferenced(trx: Db, spec: ModuleSpec, id: string): Promise<void>
}

export function createReferenceChecks(database: Database, modules: ReadonlyMap<string, ModuleSpec>): ReferenceChecks {
  /** Per target module, the fields that restrict deleting its records. */
  const restricting = new Map<string, { readonly spec: ModuleSpec; readonly ref: ReferenceSpec }[]>()
  for (const spec of modules.values())
    for (const ref of spec.references)
      if (ref.onDelete === 'restrict')
        restricting.set(ref.module, [...(restricting.get(ref.module) ?? []), { spec, ref }])

  /** The live records of `target` among `ids` (one id: `=`), locked FOR SHARE where rows lock. */
  const liveTargets = (db: Db, target: ModuleSpec, ids: string | readonly string[]) =>
    db
      .selectFrom(target.table.name)
      .select(META.id)
      .where((eb) => (typeof ids === 'string' ? eb(META.id, '=', ids) : eb(META.id, 'in', ids)))
      .where(META.deleted, 'is', null)
      .$if(database.rowLocks, (q) => q.forShare())
  /** A write naming one target, the common case: compiled once per module, only re-bound. */
  const liveOne = preparedPerModule<'id'>((target, param) => liveTargets(database.db, target, param('id')))

  return {
    async checkTargets(trx, spec, values) {
      for (const ref of spec.references) {
        const named = [...new Set(values.map((v) => v[ref.field]).filter((v): v is string => typeof v === 'string'))]
        const target = modules.get(ref.module)
        if (named.length === 0 || target === undefined) continue
        const live =
          named.length === 1
            ? (await trx.executeQuery(liveOne(target).bind({ id: named[0] }))).rows
            : await liveTargets(trx, target, named).execute()
        const found = new Set(live.map((row) => String(row[META.id])))
        const missing = named.find((id) => !found.has(id))
        if (missing !== undefined) throw referenceNotFound(ref.field, ref.module, missing)
      }
    },

    async checkUnreferenced(trx, spec, id) {
      const referrers: Referrer[] = []
      for (const { spec: from, ref } of restricting.get(spec.name) ?? []) {
        const rows = await trx
          .selectFrom(from.table.name)
          .select(META.id)
          .where(ref.column, '=', id)
          .where(META.deleted, 'is', null)
          .orderBy(META.id)
          .limit(REFERRERS_SHOWN + 1)
          .execute()
        if (rows.length === 0) continue
        const ids = rows.map((row) => String(row[META.id]))
        referrers.push({
          module: from.name,
          field: ref.field,
          ids: ids.slice(0, REFERRERS_SHOWN),
          more: ids.length > REFERRERS_SHOWN,
        })
      }
      if (referrers.length > 0) throw stillReferenced(referrers)
    },
  }
}
