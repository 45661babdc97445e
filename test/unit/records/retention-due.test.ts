// D41: when a record is due for review or past the longest it may be kept. Pure, on a fixed clock.
import t from 'tap'
import { parseDuration, type Duration } from '../../../src/config/duration.js'
import { formatTimestamp } from '../../../src/compile/time.js'
import {
  addDuration,
  dueOf,
  latestDueFrom,
  nextDueOf,
  plannedAction,
  stateEnteredAt,
} from '../../../src/records/retention-due.js'

const d = (text: string): Duration => parseDuration(text) as Duration
/** The service's wall clock at a fixed instant (the mocked clock). */
const now = formatTimestamp(new Date('2026-06-15T10:00:00Z'), 'Europe/Madrid') // 2026-06-15 12:00:00

t.test('D41: durations parse as a whole number and y, m or d; anything else does not', async (t) => {
  t.same(parseDuration('3y'), { amount: 3, unit: 'y' })
  t.same(parseDuration('6m'), { amount: 6, unit: 'm' })
  t.same(parseDuration('30d'), { amount: 30, unit: 'd' })
  for (const bad of ['0d', '3', 'y', '3 years', '1.5y', '-1y', '3Y', ' 3y', '3w', '12345d'])
    t.equal(parseDuration(bad), undefined, bad)
})

t.test('D41: a duration is added on the calendar, the day kept or cut to the month end', async (t) => {
  t.equal(addDuration('2023-06-15 09:30:00', d('3y')), '2026-06-15 09:30:00')
  t.equal(addDuration('2024-02-29 08:00:00', d('1y')), '2025-02-28 08:00:00')
  t.equal(addDuration('2026-03-31 00:00:00', d('1m')), '2026-04-30 00:00:00')
  t.equal(addDuration('2026-11-15 00:00:00', d('3m')), '2027-02-15 00:00:00')
  t.equal(addDuration('2026-12-20 23:59:59', d('30d')), '2027-01-19 23:59:59')
  t.equal(addDuration('2026-01-10', d('6m')), '2026-07-10 00:00:00', 'a date alone is its first second')
})

t.test('D41: due for review once from + review_every has passed (reason revision)', async (t) => {
  const retention = { reviewEvery: d('3y'), keepAtMost: undefined }
  t.same(dueOf(retention, { from: '2023-06-15 09:00:00', lastReview: null, now }), {
    since: '2026-06-15 09:00:00',
    reason: 'revision',
  })
  t.equal(dueOf(retention, { from: '2023-06-15 12:00:01', lastReview: null, now }), undefined, 'a second early')
  t.same(dueOf(retention, { from: '2023-06-15 12:00:00', lastReview: null, now })?.reason, 'revision', 'exactly')
})

t.test('D41: after a review the next one counts from it', async (t) => {
  const retention = { reviewEvery: d('1y'), keepAtMost: undefined }
  const clock = { from: '2020-01-01 00:00:00', lastReview: '2026-01-01 00:00:00', now }
  t.equal(dueOf(retention, clock), undefined)
  t.same(dueOf(retention, { ...clock, lastReview: '2025-06-01 00:00:00' }), {
    since: '2026-06-01 00:00:00',
    reason: 'revision',
  })
  t.equal(nextDueOf(retention, clock), '2027-01-01 00:00:00')
})

t.test('D41: past keep_at_most the reason is plazo_maximo, and a review does not extend it', async (t) => {
  const retention = { reviewEvery: d('1y'), keepAtMost: d('3y') }
  const clock = { from: '2023-01-10', lastReview: '2026-06-01 00:00:00', now }
  t.same(dueOf(retention, clock), { since: '2026-01-10 00:00:00', reason: 'plazo_maximo' })
  t.equal(nextDueOf(retention, { from: '2025-01-10', lastReview: '2026-06-01 00:00:00' }), '2027-06-01 00:00:00')
  t.equal(
    nextDueOf(retention, { from: '2024-01-10', lastReview: '2026-06-01 00:00:00' }),
    '2027-01-10 00:00:00',
    'the longest keep when it comes before the next review',
  )
})

t.test('D41: a clock that has not started (empty date, state not reached) is never due', async (t) => {
  t.equal(dueOf({ reviewEvery: d('1d'), keepAtMost: d('1d') }, { from: null, lastReview: null, now }), undefined)
  t.equal(nextDueOf({ reviewEvery: d('1d'), keepAtMost: undefined }, { from: null, lastReview: null }), null)
})

t.test('D41: from estado:<state> starts when the record last entered the state and stayed', async (t) => {
  const v = (version: number, at: string, state: string) => ({ version, at, state })
  const created = '2020-01-01 00:00:00'
  const history = [
    v(1, created, 'pendiente'),
    v(2, '2021-01-01 00:00:00', 'archivada'),
    v(3, '2022-01-01 00:00:00', 'investigacion'),
    v(4, '2023-01-01 00:00:00', 'archivada'),
    v(5, '2023-06-01 00:00:00', 'archivada'),
  ]
  t.equal(stateEnteredAt(history, 'archivada', created), '2023-01-01 00:00:00', 'the last run, not the first')
  t.equal(stateEnteredAt(history.slice(0, 3), 'archivada', created), null, 'left it since')
  t.equal(stateEnteredAt(history.slice(3), 'archivada', created), created, 'run older than the kept versions')
  t.equal(stateEnteredAt([], 'archivada', created), created, 'no versions kept at all')
})

t.test('D41: on_expiry acts past the longest keep; a review that is due always waits for a person', async (t) => {
  t.equal(plannedAction('revision', 'erase'), 'revisar')
  t.equal(plannedAction('revision', 'block'), 'revisar')
  t.equal(plannedAction('plazo_maximo', 'review'), 'revisar')
  t.equal(plannedAction('plazo_maximo', 'block'), 'bloquear')
  t.equal(plannedAction('plazo_maximo', 'erase'), 'suprimir')
})

t.test('D41: latestDueFrom bounds what may be due: every start it leaves out is not due', async (t) => {
  t.equal(latestDueFrom({ reviewEvery: d('1m'), keepAtMost: undefined }, '2026-02-28 10:00:00'), '2026-01-31 10:00:00')
  t.equal(latestDueFrom({ reviewEvery: d('3y'), keepAtMost: d('30d') }, '2026-02-28 10:00:00'), '2026-01-29 10:00:00')
  // Month ends and leap days, where calendar arithmetic cuts days: every start up to four years back.
  const day = 24 * 3600 * 1000
  const wrong: string[] = []
  for (const every of ['1m', '2m', '1y', '4y', '7d'])
    for (const nowText of [
      '2024-02-29 12:00:00',
      '2025-02-28 12:00:00',
      '2026-03-31 12:00:00',
      '2026-04-30 12:00:00',
    ]) {
      const retention = { reviewEvery: d(every), keepAtMost: undefined }
      const bound = latestDueFrom(retention, nowText)
      const start = new Date(`${nowText.replace(' ', 'T')}Z`).getTime()
      for (let back = 0; back < 4 * 366 + 40; back += 1) {
        const from = new Date(start - back * day).toISOString().slice(0, 19).replace('T', ' ')
        if (from > bound && dueOf(retention, { from, lastReview: null, now: nowText }) !== undefined)
          wrong.push(`${every}: ${from} is due at ${nowText} but after ${bound}`)
      }
    }
  t.same(wrong, [])
})
