// date, datetime and time values (D4): real calendar values only.
import t from 'tap'
import { FORMATS, isDate, isDateTime, isTime } from '../../../src/compile/formats.js'

t.test('D4: a date is YYYY-MM-DD and a real calendar day', async (t) => {
  for (const ok of ['2026-01-01', '2026-12-31', '2024-02-29', '2000-02-29', '2026-04-30', '0001-01-01'])
    t.equal(isDate(ok), true, ok)
  for (const bad of [
    '2026-02-30',
    '2026-02-29',
    '1900-02-29',
    '2026-04-31',
    '2026-13-01',
    '2026-00-10',
    '2026-01-00',
    '2026-1-01',
    '26-01-01',
    '2026-01-01 ',
    '2026/01/01',
    '',
    '2026-01-01T00:00:00',
  ])
    t.equal(isDate(bad), false, JSON.stringify(bad))
})

t.test('D4: a datetime is YYYY-MM-DD HH:MM:SS with a real day and time', async (t) => {
  for (const ok of ['2026-01-01 00:00:00', '2026-12-31 23:59:59', '2024-02-29 12:30:00'])
    t.equal(isDateTime(ok), true, ok)
  for (const bad of [
    '2026-01-01 24:00:00',
    '2026-01-01 23:60:00',
    '2026-01-01 23:59:60',
    '2026-02-30 10:00:00',
    '2026-02-29 10:00:00',
    '2026-01-01T10:00:00',
    '2026-01-01 10:00',
    '2026-01-01',
    '2026-01-01 10:00:00Z',
    '2026-01-01 10:00:00.000',
  ])
    t.equal(isDateTime(bad), false, JSON.stringify(bad))
})

t.test('D4: a time is HH:MM from 00:00 to 23:59', async (t) => {
  for (const ok of ['00:00', '23:59', '07:05', '12:00', '19:30']) t.equal(isTime(ok), true, ok)
  for (const bad of ['24:00', '23:60', '7:05', '07:5', '07:05:00', '-1:00', '', '0700', '99:99'])
    t.equal(isTime(bad), false, JSON.stringify(bad))
})

t.test('the compiled schemas name these checks as ajv formats', async (t) => {
  t.same(Object.keys(FORMATS).sort(), ['calendar-date', 'hour-minute', 'local-datetime'])
  t.equal(FORMATS['calendar-date'], isDate)
  t.equal(FORMATS['local-datetime'], isDateTime)
  t.equal(FORMATS['hour-minute'], isTime)
})
