// Timestamps in the service time zone (D9), from fixed instants: no clock in compile/.
import t from 'tap'
import { formatExactTimestamp, formatTimestamp } from '../../../src/compile/time.js'

const MADRID = 'Europe/Madrid'
const at = (iso: string) => new Date(iso)

t.test('D9: YYYY-MM-DD HH:MM:SS in Europe/Madrid, winter (UTC+1) and summer (UTC+2)', async (t) => {
  t.equal(formatTimestamp(at('2026-01-15T10:20:30Z'), MADRID), '2026-01-15 11:20:30')
  t.equal(formatTimestamp(at('2026-07-15T10:20:30Z'), MADRID), '2026-07-15 12:20:30')
})

t.test('D9: across the spring change (2026-03-29, 02:00 CET -> 03:00 CEST) there is no 02:xx', async (t) => {
  t.equal(formatTimestamp(at('2026-03-29T00:59:59Z'), MADRID), '2026-03-29 01:59:59')
  t.equal(formatTimestamp(at('2026-03-29T01:00:00Z'), MADRID), '2026-03-29 03:00:00')
})

t.test('D9: across the autumn change (2026-10-25, 03:00 CEST -> 02:00 CET) 02:30 happens twice', async (t) => {
  t.equal(formatTimestamp(at('2026-10-25T00:30:00Z'), MADRID), '2026-10-25 02:30:00')
  t.equal(formatTimestamp(at('2026-10-25T00:59:59Z'), MADRID), '2026-10-25 02:59:59')
  t.equal(formatTimestamp(at('2026-10-25T01:00:00Z'), MADRID), '2026-10-25 02:00:00')
  t.equal(formatTimestamp(at('2026-10-25T01:30:00Z'), MADRID), '2026-10-25 02:30:00')
})

t.test('D9: midnight is 00, never 24, and the local day can differ from the UTC day', async (t) => {
  t.equal(formatTimestamp(at('2026-06-30T22:00:00Z'), MADRID), '2026-07-01 00:00:00')
  t.equal(formatTimestamp(at('2025-12-31T23:30:00Z'), MADRID), '2026-01-01 00:30:00')
  t.equal(formatTimestamp(at('2026-01-01T00:00:00Z'), 'UTC'), '2026-01-01 00:00:00')
})

t.test('D9: the time zone comes from modules.yaml service.timezone', async (t) => {
  t.equal(formatTimestamp(at('2026-01-15T10:20:30Z'), 'Atlantic/Canary'), '2026-01-15 10:20:30')
  t.equal(formatTimestamp(at('2026-01-15T10:20:30Z'), 'America/New_York'), '2026-01-15 05:20:30')
})

t.test('D18: the audit log time carries milliseconds', async (t) => {
  t.equal(formatExactTimestamp(at('2026-03-29T01:00:00.007Z'), MADRID), '2026-03-29 03:00:00.007')
  t.equal(formatExactTimestamp(at('2026-07-15T10:20:30.450Z'), MADRID), '2026-07-15 12:20:30.450')
})
