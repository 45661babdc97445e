// The service's background work, all of it (STYLE.md section 10): openService starts it here once
// the app is built and its close stops it here. A new periodic job (retention, fixity) is one more
// entry of the list; one that must not run twice on instances sharing a database says
// `runs: 'one-instance'` and the runner claims each period in `_job_runs` first (job-runner.ts).
import type { FastifyBaseLogger } from 'fastify'
import type { ChangeWatch } from '../db/change-watch.js'
import type { Database } from '../db/database.js'
import { startInstanceHeartbeat } from '../db/keys/instance-heartbeat.js'
import { createJobLease } from '../db/job-lease.js'
import type { LiveKeys } from '../db/keys/live-keys.js'
import type { FileStore } from '../db/files/store.js'
import { fileFixityJob } from './file-fixity.js'
import { startJobRunner, type Job, type JobClock, type JobRunner } from './job-runner.js'
import { retentionJob } from './retention-job.js'
import type { RetentionRunOptions } from './retention-run.js'
import { SCHEMA_WATCH_MS, type SchemaWatch } from './schema-watch.js'

export interface ServiceJobsOptions {
  readonly database: Database
  readonly keys: LiveKeys
  readonly changes: ChangeWatch
  readonly heartbeatMs: number
  readonly schemaWatch: SchemaWatch
  readonly log: FastifyBaseLogger
  /** PostgreSQL (D38): the heartbeat could not seal the entries left pending. */
  readonly onSealError: (error: unknown) => void
  /** The daily retention run (D41): what it needs, its actor the service's. */
  readonly retention: RetentionRunOptions
  readonly clock?: JobClock
  /** D43: the evidence files, re-hashed once a day on one instance. */
  readonly files?: Pick<FileStore, 'verify'>
}

/** Reports this instance (its first heartbeat before this resolves), then runs every job until stopped. */
export async function startServiceJobs(options: ServiceJobsOptions): Promise<JobRunner> {
  const { database, log } = options
  // This instance's keys, reported to `records keys` and reread on a rotation's signal.
  const heartbeat = await startInstanceHeartbeat({
    database,
    keys: options.keys,
    changes: options.changes,
    intervalMs: options.heartbeatMs,
    onError: (error) => log.warn({ err: error }, 'no se pudo anotar esta instancia en _instances'),
    onSealError: options.onSealError,
    onMissingKeys: (missing) =>
      log.error({ missing }, 'La base de datos usa claves que esta instancia no tiene configuradas'),
  })
  const jobs: Job[] = [
    {
      name: 'instance-heartbeat',
      runs: 'every-instance',
      everyMs: options.heartbeatMs,
      run: heartbeat.beat,
      stop: heartbeat.stop,
    },
    {
      name: 'schema-watch',
      runs: 'every-instance',
      everyMs: SCHEMA_WATCH_MS,
      // It warns through its own `warn`, once per change; a failed look is tried again next time.
      run: async () => void (await options.schemaWatch.check().catch(() => undefined)),
    },
    // Blocks and erases what passed its longest keep, once a day across instances (D41).
    retentionJob(options.retention, log),
  ]
  if (options.files !== undefined) jobs.push(fileFixityJob(options.files, log))
  return startJobRunner(jobs, {
    instanceId: heartbeat.instanceId,
    lease: createJobLease(database),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    onError: (job, error) => log.error({ err: error, job }, 'una tarea periódica ha fallado'),
  })
}
