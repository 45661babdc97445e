// String formats of the field types (D4): real calendar values only, no 2026-02-30.

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const DATETIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/
const TIME = /^([01]\d|2[0-3]):([0-5]\d)$/

function isCalendarDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate()
  return day <= days
}

export function isDate(value: string): boolean {
  const m = DATE.exec(value)
  return m !== null && isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3]))
}

export function isDateTime(value: string): boolean {
  const m = DATETIME.exec(value)
  return (
    m !== null &&
    isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3])) &&
    Number(m[4]) < 24 &&
    Number(m[5]) < 60 &&
    Number(m[6]) < 60
  )
}

export const isTime = (value: string): boolean => TIME.test(value)

/** Custom ajv format names used by the compiled schemas, with their checks. */
export const FORMATS = {
  'calendar-date': isDate,
  'local-datetime': isDateTime,
  'hour-minute': isTime,
} as const
export type FormatName = keyof typeof FORMATS
