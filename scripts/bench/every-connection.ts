// One read on each connection a pool holds: a setting read on one connection (an SQLite pragma,
// a PostgreSQL session setting) says nothing about another (D45). No imports: the Platformatic
// plugin (platformatic-settings.ts) loads it into the peer's process too.

/**
 * Runs `read` on `count` connections at once, each held until all have read: a pool of `count`
 * connections then lends each of them once. A pool that cannot lend that many at once does not
 * hang: after `waitMs` the readers let their connections go and the caller gets what was read
 * (callers count distinct connections by their identity, e.g. the backend pid).
 */
export async function readEveryConnection<T>(
  count: number,
  hold: (work: (read: () => Promise<T>) => Promise<T>) => Promise<T>,
  waitMs = 5000,
): Promise<T[]> {
  let arrived = 0
  let release: () => void = () => undefined
  const all = new Promise<void>((resolve) => (release = resolve))
  const timer = setTimeout(() => release(), waitMs)
  try {
    return await Promise.all(
      Array.from({ length: count }, () =>
        hold(async (read) => {
          const value = await read()
          if (++arrived === count) release()
          await all
          return value
        }),
      ),
    )
  } finally {
    clearTimeout(timer)
  }
}
