// Switches every instance to the new key, then re-encrypts every value that is not under it,
// in batches of one transaction each: an interrupted rotation resumes where it stopped.
// Each batch bumps its module's generation, so running instances drop cached
// list totals whose blind indexes just changed.
import { formatExactTimestamp } from '../../compile/time.js'
import { META, ROW_COLUMN } from '../../compile/metadata.js'
import type { ServiceSpec } from '../../compile/types.js'
import { appendAudit, type AuditEvent } from '../audit/log.js'
import type { ChangeWatch } from '../change-watch.js'
import type { Database, Row } from '../database.js'
import type { RecordKeys } from './record-keys.js'
import { retireKeys, switchActiveKey } from './registry.js'
import type { SecondFactorStore } from '../accounts/second-factors.js'
import type { FileStore } from '../files/store.js'
import type { RecordCodec } from '../records/codec.js'
import { reencryptVersion, rewriteVersionData } from '../records/versions.js'
import { versionPages } from '../records/pages.js'

export interface RotationOptions {
  readonly database: Database
  readonly spec: ServiceSpec
  readonly codec: RecordCodec
  /** Their TOTP secrets are encrypted under the same keys (D42). */
  readonly factors: Pick<SecondFactorStore, 'reencryptSecrets'>
  /** Evidence files' own keys, wrapped by the field keys (D43); absent: none to rewrap. */
  readonly files?: Pick<FileStore, 'rewrapKeys'>
  /** The per-record data keys (D41), wrapped by the field keys: rewrapped, their values left as they are. */
  readonly recordKeys: Pick<RecordKeys, 'rewrap'>
  /** Caches of running instances watch it; the key signal makes them reload their keys. */
  readonly changes: ChangeWatch
  /** The key every instance encrypts with from now on; each instance must hold it already. */
  readonly activeKeyId: string
  readonly timezone: string
  readonly clock: () => Date
  readonly batchSize?: number
  /** Called after each committed batch (progress bars; tests interrupt here). */
  readonly onBatch?: (progress: { readonly module: string; readonly rewritten: number }) => void | Promise<void>
}

/**
 * Re-encrypts the kept versions of every record under the active key, in
 * batches of one transaction each, keyed by (module, record, version): an interrupted run
 * resumes, a version written meanwhile is under the active key already. Returns how many changed.
 */
async function rotateVersions(options: RotationOptions, batchSize: number): Promise<number> {
  const { database, codec } = options
  let rewritten = 0
  for (const spec of options.spec.modules) {
    if (spec.encryptedFields.length === 0) continue
    // Only versions holding a ciphertext at all.
    for await (const versions of versionPages(database.db, spec.name, batchSize, { ciphertext: true }))
      await database.db.transaction().execute(async (trx) => {
        // D41: a version's values under the service key move under its record's key.
        const ids = [...new Set(versions.map((v) => v.recordId))]
        await codec.prepareKeys(
          trx,
          spec,
          ids.map((id) => ({ id, row: {} })),
        )
        for (const version of versions) {
          const data = reencryptVersion(spec, codec, version)
          if (data === undefined) continue
          await rewriteVersionData(trx, version, data)
          rewritten += 1
        }
      })
  }
  return rewritten
}

export async function rotateEncryption(
  options: RotationOptions,
): Promise<{ rewritten: number; versions: number; secrets: number }> {
  const { database, codec, activeKeyId } = options
  const batchSize = options.batchSize ?? 500
  const activePrefix = `v1.${activeKeyId}.%`
  let rewritten = 0
  await switchActiveKey(database, options.changes, activeKeyId)
  // D41: the data keys first, wrapped again under the key now active (this process takes it up
  // as a write does), so that the values under them read on once the old key is retired.
  await database.db.transaction().execute((trx) => codec.beforeWrite(trx))
  await options.recordKeys.rewrap()
  for (const spec of options.spec.modules) {
    const encrypted = spec.encryptedFields
    if (encrypted.length === 0) continue
    let after = 0
    for (;;) {
      const done = await database.db.transaction().execute(async (trx) => {
        await codec.beforeWrite(trx)
        // Deleted rows too: no value may stay under a retired key.
        const rows = await trx
          .selectFrom(spec.table.name)
          .selectAll()
          .where(ROW_COLUMN, '>', after)
          .where((eb) =>
            // A module with record keys (D41): every row holding a value, for its values still under
            // the service key and for its blind indexes (keyed by the service key, D16).
            codec.usesRecordKeys(spec)
              ? eb.or(encrypted.map((f) => eb(f.column, 'is not', null)))
              : eb.or(
                  encrypted.map((f) => eb.and([eb(f.column, 'is not', null), eb(f.column, 'not like', activePrefix)])),
                ),
          )
          .orderBy(ROW_COLUMN)
          .limit(batchSize)
          // A request editing the same record waits, instead of being overwritten by this batch.
          .$if(database.rowLocks, (q) => q.forUpdate())
          .execute()
        if (rows.length === 0) return true
        await codec.prepareKeys(
          trx,
          spec,
          rows.map((row) => ({ id: String(row[META.id]), row })),
        )
        const events: AuditEvent[] = []
        for (const row of rows) {
          const changes = codec.reencrypt(spec, row)
          if (Object.keys(changes).length === 0) continue
          const next: Row = { ...row, ...changes }
          const hash = codec.hash(spec, next)
          await trx
            .updateTable(spec.table.name)
            .set({ ...changes, [META.hash]: hash })
            .where(META.id, '=', row[META.id] as string)
            .execute()
          events.push({
            userId: null,
            action: 'recifrar',
            module: spec.name,
            recordId: String(row[META.id]),
            version: Number(row[META.version]),
            recordHash: hash,
            fields: encrypted.filter((f) => f.column in changes).map((f) => f.name),
          })
        }
        // The audit lock before the generation's row, in the order a seal takes them (D38): no deadlock.
        if (events.length > 0) {
          await appendAudit({ database, trx, events, at: formatExactTimestamp(options.clock(), options.timezone) })
          await options.changes.bump(trx, spec.name)
        }
        after = Number(rows[rows.length - 1]?.[ROW_COLUMN])
        rewritten += events.length
        return false
      })
      if (done) break
      await options.onBatch?.({ module: spec.name, rewritten })
    }
  }
  // The kept versions too: no value may stay under a retired key.
  const versions = await rotateVersions(options, batchSize)
  // And the second factors' secrets (D42): a retired key must leave no TOTP unreadable.
  const secrets = await options.factors.reencryptSecrets()
  // And the evidence files' keys (D43): a retired key must leave no file unreadable.
  await options.files?.rewrapKeys()
  await retireKeys(database, options.changes, activeKeyId)
  return { rewritten, versions, secrets }
}
