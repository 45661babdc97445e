// Which stored records a migration step would touch, by id: what `records migrate` lists
// when it refuses a change, so an administrator sees exactly whose data is at stake.
import { META } from '../../compile/metadata.js'
import type { Db } from '../database.js'
import type { MigrationStep } from './plan.js'
import type { SchemaSnapshot } from './snapshot.js'
import { oldColumnsOf } from './step-queries.js'

async function ids(query: { execute(): Promise<Record<string, unknown>[]> }): Promise<string[]> {
  return (await query.execute()).map((row) => String(row[META.id]))
}

/**
 * Records a step would rewrite, invalidate or take out of the API; [] when it is harmless.
 * Deleted records count for removals and type changes (their values would go too), only
 * live ones for the checks a live record must pass (enum values, required fields).
 */
export async function affectedRecords(db: Db, before: SchemaSnapshot, step: MigrationStep): Promise<string[]> {
  const base = (table: string) => db.selectFrom(table).select(META.id).orderBy(META.id)
  switch (step.kind) {
    case 'narrow_enum':
      return ids(
        base(step.table)
          .where(META.deleted, 'is', null)
          .where(step.field, 'is not', null)
          .where(step.field, 'not in', [...step.allowed]),
      )
    case 'require_field':
      return ids(base(step.table).where(META.deleted, 'is', null).where(step.field, 'is', null))
    case 'check_references': {
      // Values that name no live record of the target (every value, when the target is new).
      const named = base(step.table).where(META.deleted, 'is', null).where(step.field, 'is not', null)
      if (before.modules[step.target] === undefined) return ids(named)
      const live = db.selectFrom(step.target).select(META.id).where(META.deleted, 'is', null)
      return ids(named.where(step.field, 'not in', live))
    }
    case 'remove_field':
    case 'change_type': {
      const [column] = oldColumnsOf(before, step.table, step.field)
      return column === undefined ? [] : ids(base(step.table).where(column, 'is not', null))
    }
    case 'remove_module':
      return ids(base(step.table))
    case 'rename_enum_value':
      // An encrypted value cannot be compared in SQL: the rewrite finds those records itself.
      return before.modules[step.table]?.fields[step.field]?.encrypted === true
        ? []
        : ids(base(step.table).where(step.field, '=', step.from))
    default:
      return []
  }
}
