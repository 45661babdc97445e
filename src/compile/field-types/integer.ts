// `integer`: whole numbers within JavaScript's safe range.
import { INVALID, ORDERED_OPERATORS, type FieldTypeDef } from './field-type.js'
import { BASE_DECLARATION, clamp, demoNumber, numberCell, numberSchema } from './shared.js'

export const integerType: FieldTypeDef = {
  declaration: { ...BASE_DECLARATION, bounds: 'number', defaultFits: (value) => Number.isInteger(value) },
  storage: 'integer',
  label: 'número entero',
  valueSchema: (f) => numberSchema('integer', f),
  sortable: true,
  parseFilter: (raw) => (/^-?\d{1,15}$/.test(raw) ? Number(raw) : INVALID),
  operators: ORDERED_OPERATORS,
  textual: false,
  cell: numberCell,
  example: (f) => clamp(1, f),
  demo: (f, context) => demoNumber(f, context, 0),
  textExamples: false,
}
