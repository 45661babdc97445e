// One retention run (D41), the same for `records retention run` and the service's daily job:
// the automatic expiries applied (db/retention/run.ts), then, when any record was erased, the
// acta de eliminación signed with the audit checkpoint key and written to its folder. The key and
// the folder are checked before anything is erased; an acta is written even when the run stopped
// on a failure after erasing some records.
import { accessSync, constants, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { formatExactTimestamp, formatTimestamp } from '../compile/time.js'
import type { RetentionSpec, ServiceSpec } from '../compile/types.js'
import { loadOrCreateKey, signDocument, type CheckpointKey, type SignedDocument } from '../cli/audit-checkpoint.js'
import { readAuditHead } from '../db/audit/head.js'
import type { Database } from '../db/database.js'
import { applyExpiries, expiringModules, type ExpiryRun } from '../db/retention/run.js'
import type { RetentionStore } from '../db/retention/store.js'
import { commandFailed } from '../errors.js'
import { actaBody, actaText, type ActaBody } from '../records/retention-acta.js'

export interface RetentionRunOptions {
  readonly database: Database
  readonly spec: ServiceSpec
  /** The retention store (its decide, and its reclaim after erasures). */
  readonly store: Pick<RetentionStore, 'decide' | 'reclaim'>
  readonly clock: () => Date
  /** Who decides, as audit entries name them. */
  readonly actor: string
  readonly actaDir: string
  /** The Ed25519 key of the audit checkpoints (created on first use, as `records audit checkpoint` does). */
  readonly keyFile: string
  /** Destroys the data keys left of records erased before (D41, a crash after an erasure's commit). */
  readonly sweepKeys?: () => Promise<number>
  /** The sweep failed: its keys wait for the next start or run (logged at error level, or on stderr). */
  readonly onSweepError?: (error: unknown) => void
}

export interface WrittenActa {
  readonly document: ActaBody & SignedDocument
  /** Where it was written; undefined when writing failed (`error` says why). */
  readonly file: string | undefined
  readonly error?: string
  /** True when this run created the signing key. */
  readonly keyCreated: boolean
}

export interface RetentionRunReport extends ExpiryRun {
  /** Present when the run erased records. */
  readonly acta?: WrittenActa
}

/** A file name that sorts by time and never replaces another acta (`wx`, then a suffix). */
function writeActa(dir: string, at: Date, text: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const stamp = at.toISOString().replace(/[:.]/g, '-')
  for (let n = 1; ; n += 1) {
    const file = join(dir, `acta-${stamp}${n === 1 ? '' : `-${n}`}.json`)
    try {
      writeFileSync(file, text, { flag: 'wx', mode: 0o600 })
      return file
    } catch (error) {
      if ((error as { code?: string }).code !== 'EEXIST' || n >= 100) throw error
    }
  }
}

async function signActa(
  options: RetentionRunOptions,
  key: CheckpointKey,
  run: ExpiryRun,
  at: Date,
): Promise<WrittenActa | undefined> {
  const erased = new Map<string, string[]>()
  // The data keys destroyed with the records (D41): a record of a module without encrypted fields,
  // or whose values predate record keys and were never moved, had none.
  const destroyedKeys: string[] = []
  for (const expiry of run.applied)
    if (expiry.decision === 'suprimir') {
      erased.set(expiry.module, [...(erased.get(expiry.module) ?? []), expiry.id])
      destroyedKeys.push(...(expiry.destroyedKeys ?? []))
    }
  if (erased.size === 0) return undefined
  const head = await readAuditHead(options.database.db)
  if (head === undefined) throw new Error('an erasure left no audit entry')
  const timezone = options.spec.service.timezone
  const body = actaBody({
    at: formatExactTimestamp(at, timezone),
    timezone,
    actor: options.actor,
    erased: [...erased].map(([module, ids]) => ({
      module,
      retention: options.spec.moduleByName.get(module)?.retention as RetentionSpec,
      ids,
    })),
    destroyedKeys,
    head,
  })
  const document = signDocument(body, key)
  try {
    const file = writeActa(options.actaDir, at, actaText(document))
    return { document, file, keyCreated: key.created }
  } catch (error) {
    return { document, file: undefined, error: (error as Error).message, keyCreated: key.created }
  }
}

/**
 * What erasing needs before the first record is erased: the signing key and a folder the acta
 * can be written to. Without them nothing is erased (nor blocked: the run does not start), so
 * that no erasure goes without its acta.
 */
function prepareActa(options: RetentionRunOptions): CheckpointKey | undefined {
  if (!expiringModules(options.spec.modules).some((m) => m.retention?.onExpiry === 'erase')) return undefined
  const key = loadOrCreateKey(options.keyFile)
  try {
    mkdirSync(options.actaDir, { recursive: true, mode: 0o700 })
    accessSync(options.actaDir, constants.W_OK)
  } catch (error) {
    throw commandFailed(
      `No se puede escribir el acta de eliminación en ${options.actaDir}: ${(error as Error).message}`,
    )
  }
  return key
}

/** Applies the automatic expiries and signs the acta of what was erased. */
export async function runRetention(options: RetentionRunOptions): Promise<RetentionRunReport> {
  let key: CheckpointKey | undefined
  try {
    key = prepareActa(options)
  } catch (failure) {
    const at = formatTimestamp(options.clock(), options.spec.service.timezone)
    return { at, applied: [], skipped: [], failure }
  }
  const run = await applyExpiries({
    database: options.database,
    timezone: options.spec.service.timezone,
    clock: options.clock,
    modules: options.spec.modules,
    store: options.store,
    actor: options.actor,
  })
  await options.sweepKeys?.().catch((error: unknown) => {
    options.onSweepError?.(error)
    return 0
  })
  try {
    const acta = key === undefined ? undefined : await signActa(options, key, run, options.clock())
    return acta === undefined ? run : { ...run, acta }
  } catch (error) {
    // The erasures stand: the report still lists them, and the failure says why they have no acta.
    return { ...run, failure: run.failure ?? error }
  }
}
