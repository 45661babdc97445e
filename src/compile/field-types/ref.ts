// `ref`: the id of a live record of another module (`module:`). Stored as
// the id's text; writes check the target exists and is live, `?expand=` embeds it.
import { ORDERED_OPERATORS, type FieldTypeDef } from './field-type.js'
import { anyString, BASE_DECLARATION, EXAMPLE_DATE, textCell } from './shared.js'

/** The pattern of the target module's ids (D8), when its prefix is known. */
const idPattern = (prefix: string): string => `^${prefix}-[0-9]{4}-[0-9]{5,}$`

export const refType: FieldTypeDef = {
  // The id of a live record of another module: looked up on every write, so never encrypted.
  declaration: { ...BASE_DECLARATION, encryptable: false, references: true },
  storage: 'text',
  label: 'id de registro',
  valueSchema: (f, context) => {
    const prefix = f.module === undefined ? undefined : context.prefixes?.get(f.module)
    return {
      type: 'string',
      maxLength: 64,
      ...(prefix === undefined ? {} : { pattern: idPattern(prefix) }),
      description: `Id de un registro vivo de ${f.module ?? 'otro módulo'}; con ?expand=${f.name}, ese registro`,
    }
  },
  parseFilter: anyString,
  // An id compares as text: ranges of ids (a year's records) and lists of ids make sense.
  operators: ORDERED_OPERATORS,
  sortable: true,
  textual: true,
  cell: textCell,
  example: (f) => {
    const pattern = f.valueSchema['pattern']
    const prefix = typeof pattern === 'string' ? /^\^([A-Z0-9]+)-/.exec(pattern)?.[1] : undefined
    return `${prefix ?? 'REF'}-${EXAMPLE_DATE.slice(0, 4)}-00001`
  },
  demo: (f, { idsOf, random }) => {
    const ids = f.def.module === undefined ? [] : idsOf(f.def.module)
    return ids.length === 0 ? undefined : random.pick(ids)
  },
  textExamples: false,
}
