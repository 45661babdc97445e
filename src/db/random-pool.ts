// Random bytes for IVs and salts, drawn from the CSPRNG 4 KiB at a time: one call into OpenSSL
// for about three hundred IVs instead of one per value (each call cost about 2 µs, and a create
// takes four). The bytes are the generator's own, each handed out once and then zeroed in the
// pool; a request larger than the pool goes to the generator directly.
import { randomBytes, randomFillSync } from 'node:crypto'

const POOL_SIZE = 4096
const pool = Buffer.alloc(POOL_SIZE)
let taken = POOL_SIZE

/** `size` bytes of the CSPRNG, never handed out before. */
export function randomBytesPooled(size: number): Buffer {
  if (size > POOL_SIZE) return randomBytes(size)
  if (taken + size > POOL_SIZE) {
    randomFillSync(pool)
    taken = 0
  }
  const out = Buffer.from(pool.subarray(taken, taken + size))
  pool.fill(0, taken, taken + size)
  taken += size
  return out
}
