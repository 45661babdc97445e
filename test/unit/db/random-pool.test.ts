// IVs and salts come from a pool the CSPRNG fills 4 KiB at a time: every value handed out is
// new (an IV repeated under one key would break AES-GCM), across refills too, of the size asked.
import t from 'tap'
import { randomBytesPooled } from '../../../src/db/random-pool.js'

t.test('each value is handed out once, across many refills of the pool', async (t) => {
  const seen = new Set<string>()
  let wrongSize = 0
  // 12-byte IVs: about 340 per pool, so this crosses a refill more than a hundred times.
  for (let i = 0; i < 40_000; i++) {
    const iv = randomBytesPooled(12)
    if (iv.length !== 12) wrongSize += 1
    seen.add(iv.toString('hex'))
  }
  t.equal(wrongSize, 0, 'each of the size asked')
  t.equal(seen.size, 40_000, 'no value twice')
})

t.test('a value is a copy: the pool zeroes what it handed out, never the value itself', async (t) => {
  let zeroed = 0
  for (let i = 0; i < 2_000; i++) if (randomBytesPooled(16).every((byte) => byte === 0)) zeroed += 1
  t.equal(zeroed, 0, 'no value reads as zeros (a view of the pool would, once zeroed)')
})

t.test('sizes that do not divide the pool, and one larger than it', async (t) => {
  const sizes = [1, 7, 16, 40, 4095, 4096, 5000]
  for (const size of sizes) t.equal(randomBytesPooled(size).length, size, `${size} bytes`)
  const big = randomBytesPooled(10_000)
  t.not(big.toString('hex'), '0'.repeat(20_000), 'a large request is random too')
})
