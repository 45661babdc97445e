// What the database was last migrated to: stored beside the data, diffed by plan.ts.
import type { FieldType } from '../../config/types.js'
import type { ModuleSpec, TableSpec } from '../../compile/types.js'

export interface FieldSnapshot {
  readonly type: FieldType
  readonly encrypted: boolean
  readonly required: boolean
  readonly enum?: readonly string[]
  /** A `ref` field's target module. */
  readonly module?: string
}

export interface ModuleSnapshot {
  readonly prefix: string
  readonly table: TableSpec
  readonly fields: Readonly<Record<string, FieldSnapshot>>
}

export interface SchemaSnapshot {
  readonly format: 1
  readonly modules: Readonly<Record<string, ModuleSnapshot>>
}

export const EMPTY_SNAPSHOT: SchemaSnapshot = { format: 1, modules: {} }

export function snapshotOf(modules: readonly ModuleSpec[]): SchemaSnapshot {
  return {
    format: 1,
    modules: Object.fromEntries(
      modules.map((m) => [
        m.name,
        {
          prefix: m.prefix,
          table: m.table,
          fields: Object.fromEntries(
            m.fields.map((f) => [
              f.name,
              {
                type: f.def.type,
                encrypted: f.encrypted,
                required: f.def.required,
                ...(f.def.enum === undefined ? {} : { enum: f.def.enum }),
                ...(f.def.module !== undefined ? { module: f.def.module } : {}), // references only (config/rules.ts)
              },
            ]),
          ),
        },
      ]),
    ),
  }
}
