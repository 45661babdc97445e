// A JobClock (src/app/job-runner.ts) that moves only when a test says so.
import type { JobClock } from '../../src/app/job-runner.js'

export interface ManualClock extends JobClock {
  /** Timers registered and not cancelled. */
  readonly timers: number
  /**
   * Moves time on by `ms`, firing every timer each time it falls due (all timers due at one
   * instant fire together), then awaits `settle` before the next instant.
   */
  advance(ms: number, settle?: () => Promise<void>): Promise<void>
}

export function manualClock(start = 0): ManualClock {
  let now = start
  const timers = new Set<{ due: number; ms: number; tick: () => void }>()
  return {
    now: () => now,
    every(ms, tick) {
      const timer = { due: now + ms, ms, tick }
      timers.add(timer)
      return () => void timers.delete(timer)
    },
    get timers() {
      return timers.size
    },
    async advance(ms, settle) {
      const end = now + ms
      for (;;) {
        const due = Math.min(...[...timers].map((timer) => timer.due))
        if (!(due <= end)) break
        now = due
        for (const timer of [...timers].filter((t) => t.due === due)) {
          timer.due += timer.ms
          timer.tick()
        }
        await settle?.()
      }
      now = end
    },
  }
}
