// D45: every target of `npm run bench` runs with the service's durability (SQLite: WAL and
// `synchronous = FULL`; PostgreSQL: `synchronous_commit = on`), and the report prints what each
// target's own connections answer when asked, beside its figures. A setting read on one
// connection says nothing about another (a pragma, a session setting), so each target reads it on
// every connection it holds, and the report shows any that differs. No imports: the bare stack's
// child loads it.

/** What one connection answered. */
export type ConnectionSettings =
  | { readonly kind: 'sqlite'; readonly journalMode: string; readonly synchronous: string }
  | { readonly kind: 'postgres'; readonly synchronousCommit: string }

/** A target's settings: one entry per connection it holds (the order is of no meaning). */
export interface Durability {
  readonly connections: readonly ConnectionSettings[]
}

/** `PRAGMA synchronous` answers a number; its name, as the pragma takes it. */
const SYNCHRONOUS = ['OFF', 'NORMAL', 'FULL', 'EXTRA'] as const

/** One SQLite connection's answers to `PRAGMA journal_mode` and `PRAGMA synchronous`. */
export function sqliteSettings(journalMode: unknown, synchronous: unknown): ConnectionSettings {
  const level = Number(synchronous)
  return {
    kind: 'sqlite',
    journalMode: String(journalMode).toUpperCase(),
    synchronous: SYNCHRONOUS[level] ?? String(synchronous),
  }
}

export const postgresSettings = (synchronousCommit: unknown): ConnectionSettings => ({
  kind: 'postgres',
  synchronousCommit: String(synchronousCommit),
})

const textOf = (c: ConnectionSettings): string =>
  c.kind === 'sqlite'
    ? `journal_mode=${c.journalMode}, synchronous=${c.synchronous}`
    : `synchronous_commit=${c.synchronousCommit}`

/** True when the connection runs with the service's durability (D45). */
export const hasServiceDurability = (c: ConnectionSettings): boolean =>
  c.kind === 'sqlite' ? c.journalMode === 'WAL' && c.synchronous === 'FULL' : c.synchronousCommit === 'on'

/**
 * "journal_mode=WAL, synchronous=FULL (its 1 connection)", "synchronous_commit=on (each of its 10
 * connections)", or each distinct answer with how many connections gave it, the most common first;
 * "NOT the service's durability" when any connection is otherwise.
 */
export function formatDurability(d: Durability | undefined): string {
  if (d === undefined || d.connections.length === 0) return 'not read'
  const counts = new Map<string, number>()
  for (const c of d.connections) counts.set(textOf(c), (counts.get(textOf(c)) ?? 0) + 1)
  const n = d.connections.length
  const text =
    counts.size === 1
      ? `${[...counts.keys()][0]} (${n === 1 ? 'its 1 connection' : `each of its ${n} connections`})`
      : [...counts]
          .sort(([a, i], [b, j]) => j - i || a.localeCompare(b))
          .map(([t, k]) => `${t} on ${k} of ${n} connections`)
          .join('; ')
  return d.connections.every(hasServiceDurability) ? text : `${text}: NOT the service's durability`
}
