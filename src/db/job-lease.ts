// The lease behind a job that runs on one instance of those sharing a database (app/job-runner.ts):
// a row of `_job_runs` per job names the last period claimed, who claimed it and until when its
// run may hold it. Claiming is one conditional UPDATE, atomic on both dialects (PostgreSQL
// re-checks the condition after a concurrent update commits; SQLite has one writer), so of the
// instances that try in one period exactly one wins.
import type { Database } from './database.js'
import { SYSTEM_TABLES } from './system-tables.js'

export interface JobClaim {
  readonly job: string
  /** The period the run belongs to (its number since the epoch: now divided by the job's period). */
  readonly period: number
  readonly instanceId: string
  readonly now: number
  /** How long the run may hold the job before another instance may take a later period. */
  readonly leaseMs: number
}

/** What job-runner.ts needs of a lease; createJobLease is the database's. */
export interface JobLease {
  /** True when this instance won `claim.period` (nobody claimed it or a later one, no run holds the job). */
  claim(claim: JobClaim): Promise<boolean>
  /** The run of a claimed period ended: a later period may be claimed at once. */
  release(claim: JobClaim, now: number): Promise<void>
}

/** The lease in `_job_runs` of `database`. */
export function createJobLease(database: Database): JobLease {
  const table = SYSTEM_TABLES.jobRuns
  return {
    async claim({ job, period, instanceId, now, leaseMs }) {
      await database.db
        .insertInto(table)
        .values({ job, period: -1, instance_id: '', lease_until: 0 })
        .onConflict((oc) => oc.column('job').doNothing())
        .execute()
      const result = await database.db
        .updateTable(table)
        .set({ period, instance_id: instanceId, lease_until: now + leaseMs })
        .where('job', '=', job)
        .where('period', '<', period)
        .where('lease_until', '<=', now)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) === 1
    },
    async release({ job, period, instanceId }, now) {
      await database.db
        .updateTable(table)
        .set({ lease_until: now })
        .where('job', '=', job)
        .where('period', '=', period)
        .where('instance_id', '=', instanceId)
        .execute()
    },
  }
}
