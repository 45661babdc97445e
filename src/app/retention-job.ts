// The daily retention run (D41) as one job of the service (jobs.ts): once a day across the
// instances sharing the database, what `records retention run` does, as `sistema`. It logs what it
// did at info (nothing to do included, so an operator sees it ran) and a failure at error.
import type { FastifyBaseLogger } from 'fastify'
import type { Job } from './job-runner.js'
import { runRetention, type RetentionRunOptions, type RetentionRunReport } from './retention-run.js'

/** Looked at every hour; claimed once per day (UTC), so a restart delays a run by an hour at most. */
export const RETENTION_CHECK_MS = 60 * 60 * 1000
export const RETENTION_PERIOD_MS = 24 * RETENTION_CHECK_MS
/** A run still holding the job after this is presumed dead (it only delays the next day's). */
const RETENTION_LEASE_MS = 6 * RETENTION_CHECK_MS

/** Who the audit entries and the actas of the daily run name: the service itself. */
export const SERVICE_ACTOR = 'sistema'

const ids = (list: readonly { readonly module: string; readonly id: string }[]) =>
  list.map((e) => `${e.module}:${e.id}`)

function logReport(log: FastifyBaseLogger, report: RetentionRunReport): void {
  const blocked = report.applied.filter((e) => e.decision === 'bloquear')
  const erased = report.applied.filter((e) => e.decision === 'suprimir')
  const fields = {
    job: 'retention-run',
    bloqueados: ids(blocked),
    suprimidos: ids(erased),
    omitidos: report.skipped.map((e) => ({ registro: `${e.module}:${e.id}`, motivo: e.reason, detalles: e.details })),
    acta: report.acta?.file ?? null,
  }
  if (report.acta !== undefined && report.acta.file === undefined)
    // Erased without a written acta: the signed document goes to the log, where it is kept.
    log.error(
      { ...fields, err: report.acta.error, documento: report.acta.document },
      'conservación (D41): no se pudo escribir el acta de eliminación; su contenido firmado va en este registro',
    )
  if (report.reclaimed === false)
    log.warn(
      fields,
      'conservación (D41): otra conexión leía la base de datos y su WAL no se pudo vaciar: puede guardar páginas de antes de las supresiones hasta el próximo vaciado',
    )
  if (report.failure !== undefined)
    log.error({ ...fields, err: report.failure }, 'conservación (D41): la ejecución diaria se detuvo por un fallo')
  else if (report.applied.length === 0 && report.skipped.length === 0)
    log.info(fields, 'conservación (D41): nada que bloquear ni suprimir')
  else
    log.info(
      fields,
      `conservación (D41): ${blocked.length} bloqueados, ${erased.length} suprimidos, ${report.skipped.length} omitidos`,
    )
}

export function retentionJob(options: RetentionRunOptions, log: FastifyBaseLogger): Job {
  return {
    name: 'retention-run',
    runs: 'one-instance',
    everyMs: RETENTION_CHECK_MS,
    periodMs: RETENTION_PERIOD_MS,
    leaseMs: RETENTION_LEASE_MS,
    async run() {
      try {
        logReport(log, await runRetention(options))
      } catch (error) {
        log.error({ job: 'retention-run', err: error }, 'conservación (D41): la ejecución diaria ha fallado')
      }
    },
  }
}
