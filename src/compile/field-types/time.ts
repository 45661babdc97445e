// `time`: an hour and minute HH:MM.
import { isTime } from '../formats.js'
import { ORDERED_OPERATORS, type FieldTypeDef } from './field-type.js'
import { BASE_DECLARATION, textCell, when } from './shared.js'

export const timeType: FieldTypeDef = {
  declaration: BASE_DECLARATION,
  storage: 'text',
  label: 'hora HH:MM',
  valueSchema: () => ({ type: 'string', format: 'hour-minute' }),
  parseFilter: when(isTime),
  operators: ORDERED_OPERATORS,
  sortable: true,
  textual: true,
  cell: textCell,
  example: () => '08:00',
  demo: (_, { random }) => `${String(random.int(0, 23)).padStart(2, '0')}:${random.pick(['00', '15', '30', '45'])}`,
  textExamples: true,
}
