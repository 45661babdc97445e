// `string`: short text (1,000 characters unless max_length says otherwise).
import { ORDERED_OPERATORS, type FieldTypeDef } from './field-type.js'
import { anyString, BASE_DECLARATION, stringExample, stringSchema, textCell } from './shared.js'

export const stringType: FieldTypeDef = {
  declaration: { ...BASE_DECLARATION, bounds: 'text', enumerable: true, searchable: true },
  storage: 'text',
  label: 'texto',
  valueSchema: (f) => stringSchema(f, 1000),
  parseFilter: anyString,
  operators: ORDERED_OPERATORS,
  sortable: true,
  textual: true,
  cell: textCell,
  example: stringExample,
  demo: (f, { n, random }) => {
    const { def } = f
    if (def.examples !== undefined && def.examples.length > 0 && !def.unique) return random.pick(def.examples)
    if (def.format === 'email') return `persona${n}@example.org`
    if (def.format === 'uri') return `https://example.org/documentos/${n}`
    const text = `${f.label} ${n}`
    return def.maxLength === undefined ? text : text.slice(-def.maxLength)
  },
  textExamples: true,
}
