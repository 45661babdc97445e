// `mixed`: any JSON value, stored as JSON; not filterable or sortable.
import { NO_OPERATORS, type FieldTypeDef } from './field-type.js'
import { BASE_DECLARATION, jsonCell } from './shared.js'

export const mixedType: FieldTypeDef = {
  declaration: { ...BASE_DECLARATION, comparable: false, defaultFits: () => true },
  storage: 'json',
  label: 'valor JSON',
  valueSchema: () => ({}),
  parseFilter: null,
  operators: NO_OPERATORS,
  sortable: false,
  textual: false,
  cell: jsonCell,
  example: () => ({ nota: 'Ejemplo' }),
  demo: (f) => (f.def.required ? {} : undefined),
  textExamples: true,
}
