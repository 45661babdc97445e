// Durations of modules.yaml's `retention:` (D41): a whole number and a unit, `3y`, `6m`, `30d`. Pure.

const UNIT_WORDS = {
  y: ['año', 'años'],
  m: ['mes', 'meses'],
  d: ['día', 'días'],
} as const
export type DurationUnit = keyof typeof UNIT_WORDS

export interface Duration {
  readonly amount: number
  readonly unit: DurationUnit
}

const DURATION = /^([1-9]\d{0,3})([ymd])$/

/** `3y` -> { amount: 3, unit: 'y' }; undefined for anything else (`0d`, `3 years`, `1.5y`). */
export function parseDuration(text: string): Duration | undefined {
  const match = DURATION.exec(text)
  if (match === null) return undefined
  return { amount: Number(match[1]), unit: match[2] as DurationUnit }
}

/** The duration as modules.yaml writes it: `3y` (the inverse of parseDuration). */
export const durationText = (duration: Duration): string => `${duration.amount}${duration.unit}`

/** `3y` as a reader says it: `3 años`, `1 año`. */
export const describeDuration = (duration: Duration): string =>
  `${duration.amount} ${UNIT_WORDS[duration.unit][duration.amount === 1 ? 0 : 1]}`
