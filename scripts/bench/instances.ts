// Several service instances behind the bench: `--instances 1,3` measures the
// scenarios with one service process and with three on the same PostgreSQL database, as
// docs/deployment.md runs them (the same DATABASE_URL, JWT_SECRET and encryption key, a
// DATA_DIR each). The load is spread over a group's instances by autocannon (its connections
// round-robin over the URLs); a group's CPU time and peak RSS are the sums over its instances.
import { join } from 'node:path'
import type { DatabaseKind } from './database.js'
import { startChild, type Child } from './processes.js'

/** The instance counts of `--instances` ("1", "3", "1,3"): positive integers, no repeats. */
export function parseInstances(text: string, database: DatabaseKind): readonly number[] {
  const counts = text.split(',').map((part) => part.trim())
  const parsed = counts.map((part) => (/^[1-9]\d*$/.test(part) ? Number(part) : Number.NaN))
  if (parsed.some((n) => Number.isNaN(n)))
    throw new Error(`--instances takes instance counts separated by commas (e.g. 1,3), not ${JSON.stringify(text)}`)
  if (new Set(parsed).size !== parsed.length) throw new Error(`--instances names a count twice: ${text}`)
  if (database === 'sqlite' && parsed.some((n) => n > 1))
    throw new Error(
      '--instances above 1 needs --database postgres: a SQLite database is one file with one writer, ' +
        'shared by one process (docs/deployment.md)',
    )
  return parsed
}

/** The service as N processes on one database: what a target drives and what the report sums. */
export interface ServiceGroup {
  readonly instances: number
  readonly ports: readonly number[]
  /** The first instance's port: where logins, the API seed and single-URL measurements go. */
  readonly port: number
  /** CPU seconds used so far, summed over the instances; undefined when any is unknown. */
  cpuSeconds(): number | undefined
  /** The sum of each instance's peak RSS in MiB (an upper bound of their peak together). */
  peakRssMiB(): number | undefined
  stop(): Promise<void>
}

const sumOf = (xs: readonly (number | undefined)[]): number | undefined =>
  xs.some((x) => x === undefined) ? undefined : xs.reduce<number>((n, x) => n + (x as number), 0)

export function groupOf(children: readonly Child[]): ServiceGroup {
  const first = children[0]
  if (first === undefined) throw new Error('a service group needs at least one instance')
  return {
    instances: children.length,
    ports: children.map((c) => c.port),
    port: first.port,
    cpuSeconds: () => sumOf(children.map((c) => c.cpuSeconds())),
    peakRssMiB: () => sumOf(children.map((c) => c.peakRssMiB())),
    stop: async () => void (await Promise.all(children.map((c) => c.stop()))),
  }
}

/**
 * Starts `count` instances of the service, one after another (the schema is already there).
 * With more than one, each gets the secrets of `secrets` explicitly and a DATA_DIR of its own
 * under the run's, as separate machines would; one instance runs exactly as before.
 */
export async function startServiceGroup(
  count: number,
  script: string,
  env: Readonly<Record<string, string>>,
  secrets: { readonly jwtSecret: string; readonly encryptionKey: string },
  nodeArgs: readonly string[],
): Promise<ServiceGroup> {
  const children: Child[] = []
  try {
    for (let i = 0; i < count; i++) {
      const own =
        count === 1
          ? env
          : {
              ...env,
              DATA_DIR: join(env['DATA_DIR'] ?? '.', `instance-${i + 1}`),
              JWT_SECRET: secrets.jwtSecret,
              RECORDS_ENCRYPTION_KEY: secrets.encryptionKey,
            }
      children.push(await startChild(script, { ...own }, '/api/health', nodeArgs))
    }
  } catch (error) {
    await Promise.all(children.map((c) => c.stop()))
    throw error
  }
  return groupOf(children)
}
