// What each running instance holds: a row of `_instances` per process, refreshed
// every heartbeat with the keys it has configured and the key it encrypts with. On a key
// signal (change watch) the instance reads its keys again before reporting. `records keys`
// reads these rows to know when every instance holds a new key and when none uses an old one.
// Each beat also seals audit entries left pending on PostgreSQL (D38).
import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import { sealAudit } from '../audit/log.js'
import type { ChangeWatch } from '../change-watch.js'
import type { Database } from '../database.js'
import { KEYS_SIGNAL } from './registry.js'
import type { LiveKeys } from './live-keys.js'
import { SYSTEM_TABLES } from '../system-tables.js'

export interface InstanceReport {
  readonly instanceId: string
  readonly host: string
  readonly pid: number
  readonly startedAt: string
  readonly seenAt: number
  readonly intervalMs: number
  readonly keyIds: readonly string[]
  readonly activeKeyId: string
}

export interface HeartbeatOptions {
  readonly database: Database
  readonly keys: LiveKeys
  readonly changes: ChangeWatch
  readonly intervalMs: number
  readonly onError: (error: unknown) => void
  /** PostgreSQL (D38): entries a failed seal or a crash left pending could not be sealed. */
  readonly onSealError: (error: unknown) => void
  /** Keys the stored data may use that this instance still lacks after reading its keys again. */
  readonly onMissingKeys: (missing: readonly string[]) => void
}

export interface Heartbeat {
  readonly instanceId: string
  /** One report; app/jobs.ts runs it every `intervalMs` (errors go to onError). */
  beat(): Promise<void>
  /** Removes the instance's row (a clean shutdown, once the beats have stopped). */
  stop(): Promise<void>
}

/** An instance is running while its row is younger than three of its heartbeats. */
const isLive = (report: InstanceReport, now: number) => report.seenAt >= now - 3 * report.intervalMs
/** Rows of instances gone for a day are removed (crashes leave their row behind). */
const FORGET_MS = 86_400_000

export async function startInstanceHeartbeat(options: HeartbeatOptions): Promise<Heartbeat> {
  const { database, keys, changes } = options
  const instanceId = randomUUID()
  const fixed = {
    instance_id: instanceId,
    host: hostname(),
    pid: process.pid,
    started_at: new Date().toISOString(),
    interval_ms: options.intervalMs,
  }
  let signal: number | undefined

  async function beat(): Promise<void> {
    const current = await changes.generation(KEYS_SIGNAL)
    if (signal !== undefined && current !== signal) {
      const missing = await keys.refresh()
      if (missing.length > 0) options.onMissingKeys(missing)
    }
    signal = current
    const keyring = keys.keyring()
    const report = {
      seen_at: Date.now(),
      key_ids: [...keyring.keys.keys()].sort().join(','),
      active_key_id: keyring.activeId,
    }
    await database.db
      .insertInto(SYSTEM_TABLES.instances)
      .values({ ...fixed, ...report })
      .onConflict((oc) => oc.column('instance_id').doUpdateSet(report))
      .execute()
    // Entries left pending (a seal that failed after its write committed) join the chain within
    // a heartbeat even if no other write comes (D38); SQLite has none. Costs one indexed read.
    await sealAudit(database, changes).catch(options.onSealError)
  }

  await database.db
    .deleteFrom(SYSTEM_TABLES.instances)
    .where('seen_at', '<', Date.now() - FORGET_MS)
    .execute()
  await beat()
  return {
    instanceId,
    beat: () => beat().catch(options.onError),
    async stop() {
      await database.db
        .deleteFrom(SYSTEM_TABLES.instances)
        .where('instance_id', '=', instanceId)
        .execute()
        .catch(options.onError)
    },
  }
}

/** The instances that reported within three of their heartbeats. */
export async function liveInstances(database: Database, now = Date.now()): Promise<InstanceReport[]> {
  const rows = await database.db.selectFrom(SYSTEM_TABLES.instances).selectAll().orderBy('started_at').execute()
  return rows
    .map((row) => ({
      instanceId: String(row['instance_id']),
      host: String(row['host']),
      pid: Number(row['pid']),
      startedAt: String(row['started_at']),
      seenAt: Number(row['seen_at']),
      intervalMs: Number(row['interval_ms']),
      keyIds: String(row['key_ids'])
        .split(',')
        .filter((k) => k !== ''),
      activeKeyId: String(row['active_key_id']),
    }))
    .filter((report) => isLive(report, now))
}
