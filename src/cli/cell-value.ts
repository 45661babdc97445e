// Text from a CSV cell or a `--field name=value` argument -> the JSON value the API would
// receive, as the field's type converts it (compile/field-types/). Text that does not convert is
// passed on as it is: the API's validator words the error.
import { FIELD_TYPES, type CellContext } from '../compile/field-types.js'
import type { FieldSpec } from '../compile/types.js'

/** undefined for an empty cell: the field is left out, as in a JSON body without it. */
export function cellValue(field: FieldSpec | undefined, text: string, context?: CellContext): unknown {
  if (text === '') return undefined
  return field === undefined ? text : FIELD_TYPES[field.def.type].cell(text, context)
}
