// `array`: a JSON list (up to 1,000 items), stored as JSON; not filterable or sortable.
import { NO_OPERATORS, type FieldTypeDef } from './field-type.js'
import { BASE_DECLARATION, jsonCell } from './shared.js'

export const arrayType: FieldTypeDef = {
  declaration: { ...BASE_DECLARATION, comparable: false, defaultFits: (value) => Array.isArray(value) },
  storage: 'json',
  label: 'lista',
  valueSchema: () => ({ type: 'array', maxItems: 1000 }),
  parseFilter: null,
  operators: NO_OPERATORS,
  sortable: false,
  textual: false,
  cell: jsonCell,
  example: () => ['Ejemplo'],
  demo: (f, { n }) => (f.def.required ? [`${f.label} ${n}`] : undefined),
  textExamples: true,
}
