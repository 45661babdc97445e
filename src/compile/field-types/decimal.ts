// `decimal`: numbers with a fractional part (a query filter takes up to 6 decimals).
import { INVALID, ORDERED_OPERATORS, type FieldTypeDef } from './field-type.js'
import { BASE_DECLARATION, clamp, demoNumber, numberCell, numberSchema } from './shared.js'

export const decimalType: FieldTypeDef = {
  declaration: { ...BASE_DECLARATION, bounds: 'number', defaultFits: (value) => typeof value === 'number' },
  storage: 'real',
  label: 'número',
  valueSchema: (f) => numberSchema('number', f),
  sortable: true,
  parseFilter: (raw) => (/^-?\d{1,15}(\.\d{1,6})?$/.test(raw) ? Number(raw) : INVALID),
  operators: ORDERED_OPERATORS,
  textual: false,
  // The spreadsheet that separates cells with `;` writes decimals with a comma: 12,5.
  cell: (text, context) =>
    numberCell(context?.decimalComma === true && /^-?\d+,\d+$/.test(text.trim()) ? text.replace(',', '.') : text),
  example: (f) => clamp(120.5, f),
  demo: (f, context) => demoNumber(f, context, 2),
  textExamples: false,
}
