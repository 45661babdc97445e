// Answers remembered for one generation of a module (change-watch.ts, D20), the generation
// handed in by the caller: a request that reads it once serves every cache of the module with
// that one read; generationCache (change-watch.ts) reads it itself and then asks a memo.

/** Entries kept per memo; a full memo starts over. */
const MEMO_LIMIT = 10_000

/** The answer for `id` under `generation`, from `load` the first time it is asked. */
export type GenerationMemo<T> = (generation: number, id: string, load: () => Promise<T>) => Promise<T>

/** Another generation than the last one drops every older answer. */
export function generationMemo<T>(): GenerationMemo<T> {
  let current = -1
  const entries = new Map<string, T>()
  return async (generation, id, load) => {
    if (generation !== current || entries.size >= MEMO_LIMIT) {
      entries.clear()
      current = generation
    }
    if (entries.has(id)) return entries.get(id) as T
    const value = await load()
    // A lookup under another generation while loading has dropped this one's answers: keep it out.
    if (current === generation) entries.set(id, value)
    return value
  }
}
