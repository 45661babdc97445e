// Concurrent callers that each need "a fresh look" share one: a generation read, a seal (D38).

/**
 * Wraps `work` so that concurrent calls share its runs: every call is answered by a run that
 * started after the call was made (so the run sees whatever the caller committed or wanted
 * seen before calling), and at most one run is in flight. Calls made while a run is in flight
 * all share the next run, which starts when that one ends. A failed run fails exactly the
 * calls it answers; the next call starts afresh.
 */
export function coalesced<T>(work: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined
  let next: Promise<T> | undefined
  const start = (): Promise<T> => {
    const run = work()
    running = run
    const clear = () => {
      if (running === run) running = undefined
    }
    run.then(clear, clear)
    return run
  }
  return () => {
    if (next !== undefined) return next
    if (running === undefined) return start()
    const settled = () => {
      next = undefined
      return start()
    }
    next = running.then(settled, settled)
    return next
  }
}
