// `time`: an hour and minute HH:MM.
import { isTime } from '../formats.js'
import type { FieldTypeDef } from './field-type.js'
import { textCell, when } from './shared.js'

export const timeType: FieldTypeDef = {
  storage: 'text',
  label: 'hora HH:MM',
  valueSchema: () => ({ type: 'string', format: 'hour-minute' }),
  parseFilter: when(isTime),
  sortable: true,
  textual: true,
  writeOnly: false,
  cell: textCell,
  example: () => '08:00',
  textExamples: true,
}
