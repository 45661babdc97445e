// `password`: written as a bcrypt hash (D22), never returned, never filtered or sorted.
import { NO_OPERATORS, type FieldTypeDef } from './field-type.js'
import { BASE_DECLARATION, fitLength, stringSchema, textCell } from './shared.js'

export const passwordType: FieldTypeDef = {
  declaration: {
    ...BASE_DECLARATION,
    encryptable: false,
    comparable: false,
    bounds: 'text',
    defaultFits: () => false,
    writeOnly: true,
  },
  storage: 'text',
  label: 'contraseña',
  parseFilter: null,
  operators: NO_OPERATORS,
  sortable: false,
  valueSchema: (f) => stringSchema({ ...f, maxLength: f.maxLength ?? 72 }, 72),
  textual: true,
  cell: textCell,
  example: (f) => fitLength('Contraseña-segura-1', f),
  demo: (_, context) => context.password(),
  textExamples: true,
}
