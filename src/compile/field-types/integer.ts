// `integer`: whole numbers within JavaScript's safe range.
import { INVALID, ORDERED_OPERATORS, type FieldTypeDef } from './field-type.js'
import { clamp, numberCell, numberSchema } from './shared.js'

export const integerType: FieldTypeDef = {
  storage: 'integer',
  label: 'número entero',
  valueSchema: (f) => numberSchema('integer', f),
  sortable: true,
  parseFilter: (raw) => (/^-?\d{1,15}$/.test(raw) ? Number(raw) : INVALID),
  operators: ORDERED_OPERATORS,
  textual: false,
  writeOnly: false,
  cell: numberCell,
  example: (f) => clamp(1, f),
  textExamples: false,
}
