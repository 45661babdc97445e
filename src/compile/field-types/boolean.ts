// `boolean`: true or false (the text `true` / `false` in a query string or a CSV cell).
import { INVALID, EQUALITY_OPERATORS, type FieldTypeDef } from './field-type.js'
import { BASE_DECLARATION } from './shared.js'

export const booleanType: FieldTypeDef = {
  declaration: { ...BASE_DECLARATION, encryptable: false, defaultFits: (value) => typeof value === 'boolean' },
  storage: 'boolean',
  label: 'booleano (true o false)',
  valueSchema: () => ({ type: 'boolean' }),
  sortable: true,
  parseFilter: (raw) => (raw === 'true' ? true : raw === 'false' ? false : INVALID),
  operators: EQUALITY_OPERATORS,
  textual: false,
  cell: (text) => (text === 'true' ? true : text === 'false' ? false : text),
  example: () => true,
  demo: (f, { random }) => (typeof f.def.default === 'boolean' ? f.def.default : random.chance(0.8)),
  textExamples: true,
}
