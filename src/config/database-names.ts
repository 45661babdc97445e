// The names a module's objects get in the database: its table, its indexes, its text search.
// Pure functions of module and field names, shared by the steps that create the objects
// (compile/table.ts, db/records/text-search-sql.ts) and the rule that keeps every name apart (rules.ts).
import { FIELD_DECLARATIONS } from './field-declarations.js'
import type { DefPath, FieldDef, ModuleDef } from './types.js'

/** PostgreSQL keeps the first 63 bytes of a longer identifier, in DDL and in its error reports alike. */
const MAX_IDENTIFIER_BYTES = 63
const encoder = new TextEncoder()
const bytesOf = (text: string): number => encoder.encode(text).length

/** FNV-1a (32 bits) of the text, as 8 hex digits: pure and stable across runs and platforms. */
function shortHash(text: string): string {
  let hash = 0x811c9dc5
  for (const byte of encoder.encode(text)) {
    hash ^= byte
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash.toString(16).padStart(8, '0')
}

/** The longest start of `text` that fits in `bytes` bytes, never cut inside a character. */
function cutTo(text: string, bytes: number): string {
  let cut = text
  while (bytesOf(cut) > bytes) cut = cut.slice(0, -1)
  return cut
}

/** `name` as PostgreSQL stores it: its first 63 bytes. SQLite keeps it whole. */
export const storedName = (name: string): string => cutTo(name, MAX_IDENTIFIER_BYTES)

/**
 * `cx_<table>__<f1>__<f2>`, a composite index. The `cx_` prefix keeps it apart from
 * the `ix_`/`ux_` names of single-field indexes. When a name holds `__` itself (the parts could
 * then be read two ways) or the result is too long, the name is cut and ends in a hash of the
 * table and field list.
 */
export function compositeIndexName(table: string, fields: readonly string[]): string {
  const parts = [table, ...fields]
  const readable = `cx_${parts.join('__')}`
  if (!parts.some((p) => p.includes('__')) && bytesOf(readable) <= MAX_IDENTIFIER_BYTES) return readable
  return hashed(readable, parts.join(','))
}

/** `readable` cut to end in a hash of `key` within 63 bytes: distinct keys, distinct names. */
function hashed(readable: string, key: string): string {
  const suffix = `_${shortHash(key)}`
  return `${cutTo(readable, MAX_IDENTIFIER_BYTES - suffix.length)}${suffix}`
}

/**
 * `_archived_<stamp>_<name>`: where `records migrate` keeps a removed module's table or a removed
 * field's column. Past 63 bytes (a long field name) it is cut and ends in a hash of the name, so
 * that two long names archived together, alike in their first bytes, stay two columns.
 */
export function archiveName(stamp: string, name: string): string {
  const readable = `_archived_${stamp}_${name}`
  return bytesOf(readable) <= MAX_IDENTIFIER_BYTES ? readable : hashed(readable, name)
}

/** The engine's own indexes of every module table: by id, by creator, and the live rows (D40). */
export const metaIndexNames = (table: string) => ({
  id: `ux_${table}__id`,
  createdBy: `ix_${table}__created_by`,
  live: `ix_${table}__live`,
})

/**
 * The single-field index a field asks for, or undefined: unique fields get a unique one, `index:
 * true` and references (a delete of their target looks up who still points to it) a plain one.
 */
export function fieldIndexOf(table: string, field: FieldDef): { name: string; unique: boolean } | undefined {
  if (field.unique) return { name: `ux_${table}_${field.name}`, unique: true }
  if (field.index || FIELD_DECLARATIONS[field.type].references)
    return { name: `ix_${table}_${field.name}`, unique: false }
  return undefined
}

/** SQLite's text search of a module: an FTS5 table and the triggers that keep it. */
export const searchTableName = (table: string): string => `${table}__fts`
/** The search table's triggers, after insert, delete and update of the module's table. */
export const SEARCH_TRIGGERS = ['ai', 'ad', 'au'] as const
export const searchTriggerName = (table: string, trigger: (typeof SEARCH_TRIGGERS)[number]): string =>
  `${searchTableName(table)}_${trigger}`
/** The tables FTS5 keeps beside an external-content search table. */
const FTS_SHADOW_TABLES = ['data', 'idx', 'docsize', 'config'] as const
/** PostgreSQL's text search of one column: a GIN index. */
export const searchIndexName = (table: string, column: string): string => `ix_${table}__q_${column}`

/** The indexes and key constraints of the service's own tables (db/system-tables.ts). */
export const SYSTEM_INDEXES = {
  auditRecord: 'ix_audit_record',
  auditUser: 'ix_audit_user',
  auditAt: 'ix_audit_at',
  auditRecordId: 'ix_audit_record_id',
  sequencesKey: 'pk_sequences',
  versionsKey: 'pk_versions',
  secondFactorsAccount: 'ix_second_factors_account',
  recoveryCodesKey: 'pk_recovery_codes',
  retentionKey: 'pk_retention',
  tombstonesKey: 'pk_tombstones',
  /** D41: the blocked records, which every list of a module with `retention:` leaves out. */
  retentionBlocked: 'ix_retention_blocked',
} as const

/**
 * One object a module puts in the database: its name, what it is (for a message), where it was
 * asked for. Triggers have names of their own (SQLite keeps them apart from tables and indexes).
 */
export interface DatabaseObject {
  readonly name: string
  readonly what: string
  readonly at: DefPath
  readonly trigger?: true
}

/** Every table, index and trigger a module's definition makes, on either database. */
export function databaseObjectsOf(mod: ModuleDef): DatabaseObject[] {
  const table = mod.name
  const at: DefPath = ['modules', table]
  const meta = metaIndexNames(table)
  const objects: DatabaseObject[] = [
    { name: table, what: `la tabla del módulo '${table}'`, at },
    // PostgreSQL names these itself for the table's `_row` (bigserial primary key).
    { name: `${table}_pkey`, what: `la clave primaria de la tabla del módulo '${table}'`, at },
    { name: `${table}__row_seq`, what: `la secuencia de la tabla del módulo '${table}'`, at },
    { name: meta.id, what: `el índice de ids del módulo '${table}'`, at },
    { name: meta.createdBy, what: `el índice de autores del módulo '${table}'`, at },
    { name: meta.live, what: `el índice de registros vivos del módulo '${table}'`, at },
  ]
  for (const field of mod.fields) {
    const index = fieldIndexOf(table, field)
    const fieldAt = [...at, 'fields', field.name]
    if (index !== undefined)
      objects.push({ name: index.name, what: `el índice del campo ${table}.${field.name}`, at: fieldAt })
    if (field.searchable)
      objects.push({
        name: searchIndexName(table, field.name),
        what: `el índice de búsqueda del campo ${table}.${field.name}`,
        at: fieldAt,
      })
  }
  mod.indexes.forEach((fields, i) =>
    objects.push({
      name: compositeIndexName(table, fields),
      what: `el índice [${fields.join(', ')}] del módulo '${table}'`,
      at: [...at, 'indexes', i],
    }),
  )
  if (mod.fields.some((f) => f.searchable)) {
    const fts = searchTableName(table)
    const what = `la búsqueda de texto del módulo '${table}'`
    for (const name of [fts, ...FTS_SHADOW_TABLES.map((s) => `${fts}_${s}`)]) objects.push({ name, what, at })
    for (const s of SEARCH_TRIGGERS) objects.push({ name: searchTriggerName(table, s), what, at, trigger: true })
  }
  return objects
}
