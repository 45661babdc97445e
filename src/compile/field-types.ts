// The field-type registry: one entry per type of modules.yaml, each in its own file under
// field-types/ (its JSON Schema, storage and column per dialect, query-string conversion,
// filterable and sortable, CSV cell, example value). A type without an entry does not compile.
import type { FieldType } from '../config/types.js'
import { arrayType } from './field-types/array.js'
import { booleanType } from './field-types/boolean.js'
import { dateType } from './field-types/date.js'
import { datetimeType } from './field-types/datetime.js'
import { decimalType } from './field-types/decimal.js'
import type { FieldTypeDef } from './field-types/field-type.js'
import { fileType } from './field-types/file.js'
import { integerType } from './field-types/integer.js'
import { mixedType } from './field-types/mixed.js'
import { passwordType } from './field-types/password.js'
import { refType } from './field-types/ref.js'
import { roleType } from './field-types/role.js'
import { stringType } from './field-types/string.js'
import { textType } from './field-types/text.js'
import { timeType } from './field-types/time.js'

export {
  COLUMN_TYPES,
  ENCRYPTED_OPERATORS,
  FILTER_OPERATORS,
  INVALID,
  type CellContext,
  type Dialect,
  type FieldTypeDef,
  type FilterOperator,
  type FilterParser,
  type JsonSchema,
  type SchemaContext,
  type StorageKind,
} from './field-types/field-type.js'

export const FIELD_TYPES: Readonly<Record<FieldType, FieldTypeDef>> = {
  string: stringType,
  text: textType,
  integer: integerType,
  decimal: decimalType,
  boolean: booleanType,
  date: dateType,
  datetime: datetimeType,
  time: timeType,
  array: arrayType,
  mixed: mixedType,
  password: passwordType,
  role: roleType,
  ref: refType,
  file: fileType,
}
