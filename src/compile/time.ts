// Timestamps in the service time zone (D9), from a given Date: pure, no clock here.

const formatters = new Map<string, Intl.DateTimeFormat>()

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone)
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
    formatters.set(timeZone, formatter)
  }
  return formatter
}

/** The last second formatted per time zone: writes within one second share it. */
const lastFormatted = new Map<string, { second: number; text: string }>()

/** `YYYY-MM-DD HH:MM:SS` in `timeZone`. */
export function formatTimestamp(date: Date, timeZone: string): string {
  const second = Math.floor(date.getTime() / 1000)
  const last = lastFormatted.get(timeZone)
  if (last !== undefined && last.second === second) return last.text
  const parts: Record<string, string> = {}
  for (const part of formatterFor(timeZone).formatToParts(date)) parts[part.type] = part.value
  const text = `${parts['year']}-${parts['month']}-${parts['day']} ${parts['hour']}:${parts['minute']}:${parts['second']}`
  lastFormatted.set(timeZone, { second, text })
  return text
}

/** `YYYY-MM-DD HH:MM:SS.mmm` in `timeZone`: the audit log's exact time (D18). */
export const formatExactTimestamp = (date: Date, timeZone: string): string =>
  `${formatTimestamp(date, timeZone)}.${String(date.getUTCMilliseconds()).padStart(3, '0')}`
