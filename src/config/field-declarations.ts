// What each type of `type:` in modules.yaml (field-type-names.ts) may declare there. A field
// type is one file of compile/field-types/ (STYLE.md section 10): its declaration rules are the
// `declaration` of that file, listed here for config/, which imports nothing else of compile/
// (docs/development.md says why). A unit test keeps this list, the
// registry compile/field-types.ts and schema/modules.schema.json in step.
import { arrayType } from '../compile/field-types/array.js'
import { booleanType } from '../compile/field-types/boolean.js'
import { dateType } from '../compile/field-types/date.js'
import { datetimeType } from '../compile/field-types/datetime.js'
import { decimalType } from '../compile/field-types/decimal.js'
import { FILE_SIGNATURES, fileType } from '../compile/field-types/file.js'
import type { FieldDeclaration } from '../compile/field-types/field-type.js'
import type { FieldType } from './field-type-names.js'
import { integerType } from '../compile/field-types/integer.js'
import { mixedType } from '../compile/field-types/mixed.js'
import { passwordType } from '../compile/field-types/password.js'
import { refType } from '../compile/field-types/ref.js'
import { roleType } from '../compile/field-types/role.js'
import { stringType } from '../compile/field-types/string.js'
import { textType } from '../compile/field-types/text.js'
import { timeType } from '../compile/field-types/time.js'

export type { FieldDeclaration }

export const FIELD_DECLARATIONS = {
  string: stringType.declaration,
  text: textType.declaration,
  integer: integerType.declaration,
  decimal: decimalType.declaration,
  boolean: booleanType.declaration,
  date: dateType.declaration,
  datetime: datetimeType.declaration,
  time: timeType.declaration,
  array: arrayType.declaration,
  mixed: mixedType.declaration,
  password: passwordType.declaration,
  role: roleType.declaration,
  ref: refType.declaration,
  file: fileType.declaration,
} as const satisfies Readonly<Record<FieldType, FieldDeclaration>>

/** D43: the MIME types a `file` field's `types:` may list: those the service recognises by their bytes. */
export const FILE_MIME_TYPES: readonly string[] = Object.keys(FILE_SIGNATURES)

export type { FieldType }
