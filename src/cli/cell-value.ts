// Text from a CSV cell or a `--field name=value` argument -> the JSON value the API would
// receive. Text that does not convert is passed on as it is: the API's validator words the error.
import type { FieldSpec } from '../compile/types.js'

const NUMBER = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/

/** undefined for an empty cell: the field is left out, as in a JSON body without it. */
export function cellValue(field: FieldSpec | undefined, text: string): unknown {
  if (text === '') return undefined
  switch (field?.def.type) {
    case 'integer':
    case 'decimal':
      return NUMBER.test(text.trim()) ? Number(text) : text
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : text
    case 'array':
    case 'mixed':
      try {
        return JSON.parse(text) as unknown
      } catch {
        return text
      }
    default:
      return text
  }
}
