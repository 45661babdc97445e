// The vocabulary of `type:` in modules.yaml, by name only. Kept apart from the declarations
// (field-declarations.ts, which lists each type file's rules) so that the typed shape of
// modules.yaml (types.ts), which the type files import, imports none of them back: no cycle.
// field-declarations.ts must declare exactly these names (a missing or extra one does not compile).
export const FIELD_TYPE_NAMES = [
  'string',
  'text',
  'integer',
  'decimal',
  'boolean',
  'date',
  'datetime',
  'time',
  'array',
  'mixed',
  'password',
  'role',
  'ref',
  'file',
] as const

export type FieldType = (typeof FIELD_TYPE_NAMES)[number]
