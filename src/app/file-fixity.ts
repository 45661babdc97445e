// D43: the service's own fixity check, one job of jobs.ts: once a day, on one instance of those
// sharing the database, every stored evidence file is re-hashed (as `records files verify` does,
// each check a custody entry in the service's name) and an altered one is logged at error level.
import type { FastifyBaseLogger } from 'fastify'
import type { FileStore } from '../db/files/store.js'
import type { Job } from './job-runner.js'

export const FILE_FIXITY_MS = 24 * 60 * 60 * 1000

export function fileFixityJob(files: Pick<FileStore, 'verify'>, log: FastifyBaseLogger, everyMs = FILE_FIXITY_MS): Job {
  return {
    name: 'file-fixity',
    runs: 'one-instance',
    everyMs,
    // A large store takes a while to read: the lease outlives the run, not the period.
    leaseMs: everyMs,
    async run() {
      const results = await files.verify(null, (result) => {
        if (!result.ok)
          log.error(
            {
              module: result.module,
              recordId: result.recordId,
              field: result.field,
              n: result.n,
              problem: result.problem,
            },
            'Fichero de prueba alterado: no coincide con el SHA-256 de su subida (D43)',
          )
      })
      const altered = results.filter((r) => !r.ok).length
      log.info({ files: results.length, altered }, 'comprobación de ficheros de prueba terminada')
    },
  }
}
