// `datetime`: a local date and time AAAA-MM-DD HH:MM:SS in the service's zone (D9).
import { isDateTime } from '../formats.js'
import { ORDERED_OPERATORS, type FieldTypeDef } from './field-type.js'
import { BASE_DECLARATION, EXAMPLE_DATE, textCell, when } from './shared.js'

export const datetimeType: FieldTypeDef = {
  declaration: { ...BASE_DECLARATION, acceptsNow: true },
  storage: 'text',
  label: 'fecha y hora AAAA-MM-DD HH:MM:SS',
  valueSchema: () => ({ type: 'string', format: 'local-datetime' }),
  parseFilter: when(isDateTime),
  operators: ORDERED_OPERATORS,
  sortable: true,
  textual: true,
  now: 'datetime',
  cell: textCell,
  example: () => `${EXAMPLE_DATE} 10:30:00`,
  demo: (_, context) => context.pastStamp(),
  textExamples: true,
}
