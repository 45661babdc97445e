// Background work in one seam (STYLE.md section 10): each job says how often it runs and whether
// every instance runs it (the heartbeat, the schema watch) or one instance of those sharing the
// database per period (retention and fixity runs): those claim the period in the database first
// (db/job-lease.ts). One runner starts them and one stop ends them all: timers cleared, runs in
// progress awaited, then each job's own stop, last started first.
import type { JobLease } from '../db/job-lease.js'

export interface Job {
  /** Stable: the lease of a job that runs on one instance is kept under this name. */
  readonly name: string
  /**
   * 'every-instance': each instance runs it every period on its own timer.
   * 'one-instance': of the instances sharing the database, the first whose timer fires in a
   * period runs it; the others skip that period.
   */
  readonly runs: 'every-instance' | 'one-instance'
  readonly everyMs: number
  /**
   * 'one-instance': the period claimed, once across instances (default everyMs). Longer than
   * everyMs, the job is looked at every everyMs and runs at the first look of each period, so a
   * daily job still runs on a day its instances restarted more often than daily.
   */
  readonly periodMs?: number
  /** 'one-instance': how long a run may hold the job before it is presumed dead (default everyMs). */
  readonly leaseMs?: number
  run(): Promise<void>
  /** After the runner stopped: whatever the job must undo (the heartbeat removes its row). */
  stop?(): Promise<void>
}

/** Time as the runner sees it: Date.now and setInterval, or a test's own. */
export interface JobClock {
  now(): number
  /** Calls `tick` every `ms` until the returned function is called; never keeps the process alive. */
  every(ms: number, tick: () => void): () => void
}

export const SYSTEM_CLOCK: JobClock = {
  now: () => Date.now(),
  every(ms, tick) {
    const timer = setInterval(tick, ms)
    timer.unref()
    return () => clearInterval(timer)
  },
}

export interface JobRunnerOptions {
  /** Who claims a period of a 'one-instance' job (the heartbeat's instance id). */
  readonly instanceId: string
  /** Required when a job runs on one instance. */
  readonly lease?: JobLease
  readonly clock?: JobClock
  /** A run failed (a claim that fails counts as its run's failure); the job runs again next period. */
  readonly onError: (job: string, error: unknown) => void
}

export interface JobRunner {
  /** Resolves once the runs in progress (their claims included) have ended. */
  settled(): Promise<void>
  /**
   * Stops every timer, waits for the runs in progress, then calls each job's stop (a failure goes
   * to onError); a second call returns the first's promise.
   */
  stop(): Promise<void>
}

/** Starts `jobs`: the first run of each comes one period after the start. */
export function startJobRunner(jobs: readonly Job[], options: JobRunnerOptions): JobRunner {
  const clock = options.clock ?? SYSTEM_CLOCK
  const { lease } = options
  if (lease === undefined && jobs.some((job) => job.runs === 'one-instance'))
    throw new Error('a job that runs on one instance needs a lease')
  const running = new Set<Promise<void>>()
  const cancels: (() => void)[] = []
  let stopped = false
  let stopping: Promise<void> | undefined

  async function once(job: Job): Promise<void> {
    if (job.runs === 'every-instance' || lease === undefined) return job.run()
    const now = clock.now()
    const claim = {
      job: job.name,
      period: Math.floor(now / (job.periodMs ?? job.everyMs)),
      instanceId: options.instanceId,
      now,
      leaseMs: job.leaseMs ?? job.everyMs,
    }
    if (!(await lease.claim(claim))) return
    try {
      await job.run()
    } finally {
      await lease.release(claim, clock.now())
    }
  }

  for (const job of jobs) {
    let current: Promise<void> | undefined
    const tick = () => {
      // A run still going when its next period comes is not doubled: that tick is skipped.
      if (stopped || current !== undefined) return
      const run = once(job)
        .catch((error: unknown) => options.onError(job.name, error))
        .finally(() => {
          current = undefined
          running.delete(run)
        })
      current = run
      running.add(run)
    }
    cancels.push(clock.every(job.everyMs, tick))
  }

  const settled = async () => void (await Promise.all(running))
  return {
    settled,
    stop() {
      stopping ??= (async () => {
        stopped = true
        for (const cancel of cancels) cancel()
        await settled()
        for (const job of [...jobs].reverse())
          if (job.stop !== undefined) await job.stop().catch((error: unknown) => options.onError(job.name, error))
      })()
      return stopping
    },
  }
}
