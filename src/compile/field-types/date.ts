// `date`: a calendar date AAAA-MM-DD; `default: $now` stores today's date in the service's zone.
import { isDate } from '../formats.js'
import { ORDERED_OPERATORS, type FieldTypeDef } from './field-type.js'
import { BASE_DECLARATION, EXAMPLE_DATE, textCell, when } from './shared.js'

export const dateType: FieldTypeDef = {
  declaration: { ...BASE_DECLARATION, acceptsNow: true },
  storage: 'text',
  label: 'fecha AAAA-MM-DD',
  valueSchema: () => ({ type: 'string', format: 'calendar-date' }),
  parseFilter: when(isDate),
  operators: ORDERED_OPERATORS,
  sortable: true,
  textual: true,
  now: 'date',
  cell: textCell,
  example: () => EXAMPLE_DATE,
  demo: (_, context) => context.pastStamp().slice(0, 10),
  textExamples: true,
}
