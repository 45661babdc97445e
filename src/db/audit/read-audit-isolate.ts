// One entry the database refuses must never block the others (F1): a batch that fails is split in
// halves until the entries that can be written are, and the ones the database refuses stand alone.
// A failure of the writer itself (read-audit-faults.ts) stops the split: the rest is kept, in order,
// for a later flush, so a database that is away or a disk that is full loses nothing.
import type { AuditEvent } from './log.js'
import { writeFault } from './read-audit-faults.js'

/**
 * Failed writes one call may make: isolating a few bad entries in a batch of 1000 takes about 20 per
 * entry; past this the rest is kept, as if the writer had failed, so that a failure of unknown kind
 * on every entry costs a flush a bounded number of transactions, not two per entry.
 */
const MAX_FAILED_WRITES = 100

export interface IsolatedBatch {
  /** Entries committed. */
  readonly written: number
  /** Entries the writer could not write now, in their order: for a later flush. */
  readonly kept: readonly AuditEvent[]
  /** Entries the database refused, each alone, with its error: none of them will ever be stored. */
  readonly refused: readonly { readonly event: AuditEvent; readonly error: unknown }[]
  /** Why the writer could not write, when it could not (then `kept` is not empty). */
  readonly writerError?: unknown
}

/**
 * Writes `batch` with `write` (one transaction per call), isolating what fails. An entry whose error
 * cannot be told apart (neither its data nor the writer, e.g. an unknown code) is refused only when
 * entries beside it were written in this very call, which proves the writer can write; else it is kept.
 */
export async function writeIsolating(
  write: (events: readonly AuditEvent[]) => Promise<void>,
  batch: readonly AuditEvent[],
): Promise<IsolatedBatch> {
  let written = 0
  let writerError: unknown
  let writerFailed = false
  const kept: AuditEvent[] = []
  const refused: { event: AuditEvent; error: unknown }[] = []
  const suspects: { event: AuditEvent; error: unknown }[] = []
  let failures = 0
  const attempt = async (events: readonly AuditEvent[]): Promise<void> => {
    if (writerFailed) return void kept.push(...events)
    try {
      await write(events)
      written += events.length
    } catch (error) {
      failures += 1
      const fault = writeFault(error)
      if (fault === 'writer' || failures > MAX_FAILED_WRITES) {
        writerFailed = true
        writerError = error
        kept.push(...events)
      } else if (events.length === 1) (fault === 'entry' ? refused : suspects).push({ event: events[0]!, error })
      else {
        const middle = Math.ceil(events.length / 2)
        await attempt(events.slice(0, middle))
        await attempt(events.slice(middle))
      }
    }
  }
  await attempt(batch)
  if (suspects.length > 0) {
    if (written > 0 && !writerFailed) refused.push(...suspects)
    else {
      kept.unshift(...suspects.map((s) => s.event))
      if (!writerFailed) writerError = suspects[0]!.error
      writerFailed = true
    }
  }
  return { written, kept, refused, ...(writerFailed ? { writerError } : {}) }
}
