// `text`: long text (100,000 characters unless max_length says otherwise).
import { ORDERED_OPERATORS, type FieldTypeDef } from './field-type.js'
import { anyString, BASE_DECLARATION, stringExample, stringSchema, textCell } from './shared.js'

export const textType: FieldTypeDef = {
  declaration: { ...BASE_DECLARATION, bounds: 'text', searchable: true },
  storage: 'text',
  label: 'texto',
  valueSchema: (f) => stringSchema(f, 100_000),
  parseFilter: anyString,
  operators: ORDERED_OPERATORS,
  sortable: true,
  textual: true,
  cell: textCell,
  example: stringExample,
  demo: (f, { n }) => `${f.label}: texto de demostración ${n}.`,
  textExamples: true,
}
