// The per-request work the service owes on every GET beyond the bare stack's (token, row,
// decryption), written by hand as leanly as this stack allows: what a GET of the same-work
// stack adds (`/bare/same/denuncias/:id`, and S2f's page `/bare/same/denuncias`,
// scripts/bench/bare-server.ts). It measures how far a Fastify + better-sqlite3 or `pg` stack
// gets when it owes what the service owes, the bound docs/performance.md sets beside the S1 and
// S2f targets against the peer:
//   - the security headers, the request id and `cache-control: no-store` of every answer;
//   - two rate limits, per address a minute and per token an hour (D24), with their headers;
//   - the account and the token checked again on every request (revoked, account disabled,
//     session version; D20), here from memory while nothing else committed (SQLite's
//     `pragma data_version`), on PostgreSQL in the same statement as the record (beside the
//     page and its count, for S2f's page);
//   - one consultation entry per read of personal data (art. 25), chained by hash (D18) and
//     appended in batches (at most 1,000 or 1 s), on SQLite from a worker thread.
// Not measured here, and owed by the service too: field rules and scopes (nothing to hide from
// superadmin), the X-Motivo and NUL checks, the answer's schema. Speed is never asserted.
import { createHash, randomUUID } from 'node:crypto'
import { META } from '../../src/compile/metadata.js'
import { helmetHeaders } from '../../src/http/security-headers.js'

/** The headers every answer of the service carries, the rate limits' apart. */
export const ANSWER_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  ...helmetHeaders({ contentSecurityPolicy: { directives: { 'upgrade-insecure-requests': null } } }),
}

export const newRequestId = (): string => randomUUID()

/**
 * The metadata a record of the service carries for a reader of every field (API reference 2.3,
 * F4): all of it but `_deleted`, which a live record has none of.
 */
export const RECORD_META: readonly string[] = Object.values(META).filter((name) => name !== META.deleted)

export interface Limited {
  /** Undefined: over the limit (429). Else the headers of the tighter limit. */
  readonly headers: Readonly<Record<string, string>> | undefined
}

/** Fixed-window counters per address (a minute) and per token (an hour). */
export function createRateLimits(ipPerMinute: number, tokenPerHour: number, now: () => number = Date.now) {
  const windows = [
    { limit: ipPerMinute, ms: 60_000, counts: new Map<string, { n: number; resetAt: number }>() },
    { limit: tokenPerHour, ms: 3_600_000, counts: new Map<string, { n: number; resetAt: number }>() },
  ] as const
  return (address: string, token: string): Limited => {
    const at = now()
    let tightest: { limit: number; remaining: number; resetAt: number } | undefined
    for (const [i, window] of windows.entries()) {
      const key = i === 0 ? address : token
      let count = window.counts.get(key)
      if (count === undefined || count.resetAt <= at)
        window.counts.set(key, (count = { n: 0, resetAt: at + window.ms }))
      count.n += 1
      const remaining = window.limit - count.n
      if (remaining < 0) return { headers: undefined }
      if (tightest === undefined || remaining < tightest.remaining)
        tightest = { limit: window.limit, remaining, resetAt: count.resetAt }
    }
    const limit = tightest as { limit: number; remaining: number; resetAt: number }
    return {
      headers: {
        'x-ratelimit-limit': String(limit.limit),
        'x-ratelimit-remaining': String(limit.remaining),
        'x-ratelimit-reset': String(Math.ceil((limit.resetAt - at) / 1000)),
      },
    }
  }
}

/** One consultation entry as the bench's table holds it, before it is chained. */
export interface Consultation {
  readonly at: string
  readonly userId: string
  readonly module: string
  readonly recordId: string
  readonly version: number | null
  readonly fields: readonly string[]
  readonly address: string
  readonly requestId: string
}

/** A chained entry: its hash covers the previous entry's hash and the entry itself. */
export interface ChainedConsultation extends Consultation {
  readonly prevHash: string
  readonly hash: string
}

export const CONSULTATIONS_TABLE = (rowColumn: string) =>
  `create table if not exists bare_consultations (seq ${rowColumn}, at text not null, user_id text not null, module text not null, record_id text not null, version integer, fields text not null, address text not null, request_id text not null, prev_hash text not null, hash text not null)`

/** Chains `entries` after the entry whose hash is `prevHash` ('' for the first). */
export function chain(prevHash: string, entries: readonly Consultation[]): ChainedConsultation[] {
  let prev = prevHash
  return entries.map((entry) => {
    const hash = createHash('sha256').update(prev).update(JSON.stringify(entry)).digest('hex')
    const chained = { ...entry, prevHash: prev, hash }
    prev = hash
    return chained
  })
}

/** The row of a chained entry, in the order of the table's columns after `seq`. */
export const consultationValues = (e: ChainedConsultation): unknown[] => [
  e.at,
  e.userId,
  e.module,
  e.recordId,
  e.version,
  JSON.stringify(e.fields),
  e.address,
  e.requestId,
  e.prevHash,
  e.hash,
]

/**
 * Buffers entries and hands them to `write` in batches of at most `maxBatch`, at the latest
 * `maxDelayMs` after the first one waited: a read costs a push to an array, as in the service.
 */
export function createConsultationLog(
  write: (entries: readonly Consultation[]) => Promise<void>,
  { maxBatch = 1000, maxDelayMs = 1000 }: { maxBatch?: number; maxDelayMs?: number } = {},
) {
  let pending: Consultation[] = []
  let timer: NodeJS.Timeout | undefined
  let writing = Promise.resolve()
  // A batch that could not be written stops the stack: a read that cannot be logged is not served.
  let failure: unknown
  const send = (): void => {
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
    const batch = pending
    pending = []
    if (batch.length > 0) writing = writing.then(() => write(batch)).catch((error: unknown) => void (failure ??= error))
  }
  const flush = async (): Promise<void> => {
    send()
    await writing
    if (failure !== undefined) throw failure
  }
  return {
    record(entry: Consultation): void {
      if (failure !== undefined) throw failure
      pending.push(entry)
      if (pending.length >= maxBatch) send()
      else timer ??= setTimeout(send, maxDelayMs)
    },
    flush,
  }
}
