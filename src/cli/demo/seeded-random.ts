// The random numbers of `records demo`: from a seed, so `--seed` repeats the same data.
import { createHash } from 'node:crypto'

export interface Random {
  /** In [0, 1). */
  next(): number
  /** An integer in [min, max]. */
  int(min: number, max: number): number
  pick<T>(values: readonly T[]): T
  chance(probability: number): boolean
}

/** mulberry32 over the seed's SHA-256: small, fast and the same on every platform. */
export function createRandom(seed: string): Random {
  let state = createHash('sha256').update(seed).digest().readUInt32LE(0)
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1))
  return {
    next,
    int,
    pick: <T>(values: readonly T[]): T => {
      if (values.length === 0) throw new Error('pick from an empty list')
      return values[int(0, values.length - 1)] as T
    },
    chance: (probability) => next() < probability,
  }
}
