// Rows of an import that would break a unique field, found before anything is written, so
// each is reported with its line (a failed insert in the middle of a batch could not say which).
import { META } from '../compile/metadata.js'
import type { FieldSpec, ModuleSpec } from '../compile/types.js'
import { canonicalJson } from '../db/canonical.js'
import type { Row } from '../db/database.js'
import { VALUE_CONVERSIONS } from '../db/dialects/values.js'
import { uniqueConflict } from '../errors.js'
import type { Environment } from './environment.js'

const CHUNK = 500

interface Candidate {
  readonly line: number
  readonly values: Row
}

/** The stored forms a value is looked up by: the column value, or its blind indexes under every key. */
function lookupKeys(env: Environment, field: FieldSpec, value: unknown): unknown[] {
  return field.encrypted
    ? [...env.codec.blindIndexes(value)]
    : [VALUE_CONVERSIONS[env.database.dialect][field.storage].toDb(value)]
}

export async function findDuplicates(
  env: Environment,
  spec: ModuleSpec,
  rows: readonly Candidate[],
): Promise<{ line: number; reason: string }[]> {
  const found = new Map<number, string>()
  for (const field of spec.fields.filter((f) => f.def.unique)) {
    const message = uniqueConflict(field.name).message
    const column = field.encrypted ? field.blindIndexColumn : field.column
    if (column === undefined) continue
    const firstLine = new Map<string, number>()
    const byKey = new Map<unknown, number[]>()
    for (const { line, values } of rows) {
      const value = values[field.name]
      if (value === undefined || value === null) continue
      const key = canonicalJson(value)
      const first = firstLine.get(key)
      if (first !== undefined) found.set(line, `${message} (repetido de la línea ${first})`)
      else firstLine.set(key, line)
      for (const lookup of lookupKeys(env, field, value)) byKey.set(lookup, [...(byKey.get(lookup) ?? []), line])
    }
    const keys = [...byKey.keys()]
    for (let i = 0; i < keys.length; i += CHUNK) {
      const existing = await env.database.db
        .selectFrom(spec.table.name)
        .select([column, META.id])
        .where(META.deleted, 'is', null)
        .where(column, 'in', keys.slice(i, i + CHUNK) as never[])
        .execute()
      for (const row of existing)
        for (const line of byKey.get(row[column]) ?? [])
          if (!found.has(line)) found.set(line, `${message} (${String(row[META.id])})`)
    }
  }
  return [...found].map(([line, reason]) => ({ line, reason }))
}
