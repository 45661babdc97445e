// One per instance: reads the record writes the audit chain gained since it last looked and
// hands them, in seq order, to every open stream of this instance. It looks
// when told: a write answered by this instance, a PostgreSQL NOTIFY from any instance (sent on
// commit, audit/log.ts), and a poll: on SQLite `PRAGMA data_version` tells, at no table read,
// that another process (the `records` command, another instance on the file) committed;
// on PostgreSQL the poll is only a safety net behind LISTEN.
import type { AuditEntry } from '../../db/audit/log.js'
import type { AuditTail } from '../../db/audit/tail.js'

export type FeedListener = (entries: readonly AuditEntry[]) => void

export interface LiveFeed {
  /** Registers a listener; resolves to the last seq already handed out (the listener gets the ones after). */
  subscribe(listener: FeedListener): Promise<{ readonly cursor: number; readonly unsubscribe: () => void }>
  /** Something may have been written: look now. */
  wake(): void
  close(): Promise<void>
}

export interface LiveFeedOptions {
  readonly tail: AuditTail
  /** How often to look without being told (default: 100 ms on SQLite, 2 s on PostgreSQL). */
  readonly pollMs?: number
  readonly onError: (error: unknown) => void
}

const BATCH = 500

export function createLiveFeed({ tail, pollMs, onError }: LiveFeedOptions): LiveFeed {
  const listeners = new Set<FeedListener>()
  let lastSeq = 0
  let started: Promise<void> | undefined
  let timer: NodeJS.Timeout | undefined
  let unlisten: (() => Promise<void>) | undefined
  let closed = false
  let running: Promise<void> | undefined
  let again = false
  let seenVersion = tail.dataVersion?.()

  async function pump(): Promise<void> {
    for (;;) {
      const entries = await tail.writesAfter(lastSeq, BATCH)
      if (entries.length === 0) return
      lastSeq = (entries.at(-1) as AuditEntry).seq
      for (const listener of listeners) listener(entries)
      if (entries.length < BATCH) return
    }
  }

  function wake(): void {
    if (started === undefined || closed) return
    if (running !== undefined) {
      again = true
      return
    }
    running = pump()
      .catch(onError)
      .finally(() => {
        running = undefined
        if (again) {
          again = false
          wake()
        }
      })
  }

  function tick(): void {
    if (tail.dataVersion === undefined) return wake()
    // SQLite: only when another connection committed since the last look.
    const version = tail.dataVersion()
    if (version === seenVersion) return
    seenVersion = version
    wake()
  }

  async function start(): Promise<void> {
    lastSeq = await tail.lastSeq()
    if (tail.listen !== undefined)
      unlisten = await tail.listen(wake).catch((error: unknown) => {
        onError(error) // the poll still delivers, later
        return undefined
      })
    timer = setInterval(tick, pollMs ?? (tail.listen === undefined ? 100 : 2000))
    timer.unref()
  }

  return {
    async subscribe(listener) {
      await (started ??= start())
      // Wait for a look in progress: its entries are handed out before the cursor is taken.
      while (running !== undefined) await running
      listeners.add(listener)
      return { cursor: lastSeq, unsubscribe: () => void listeners.delete(listener) }
    },
    wake,
    async close() {
      closed = true
      if (timer !== undefined) clearInterval(timer)
      listeners.clear()
      await running
      await unlisten?.()
    },
  }
}
