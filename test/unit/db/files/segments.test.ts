// D43: sealed segments. What was sealed opens to the same bytes, and any change at rest (a byte
// flipped, a segment dropped, moved or cut off at a segment's end) fails before a byte of the
// damaged segment is given out.
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { openedSegments, sealedSegments, SEGMENT_BYTES, TAG_BYTES } from '../../../../src/db/files/segments.js'

async function collect(source: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = []
  for await (const part of source) parts.push(part)
  return Buffer.concat(parts)
}
async function* chunks(bytes: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size)
}
const seal = (key: Buffer, plain: Buffer) => collect(sealedSegments(key, chunks(plain, 10_000)))
const open = (key: Buffer, sealed: Buffer) => collect(openedSegments(key, chunks(sealed, 7_777)))

t.test('D43: sealed bytes open to the original, whatever the chunking and size', async (t) => {
  const key = randomBytes(32)
  for (const size of [0, 1, SEGMENT_BYTES - 1, SEGMENT_BYTES, SEGMENT_BYTES + 1, 2 * SEGMENT_BYTES + 5]) {
    const plain = randomBytes(size)
    const sealed = await seal(key, plain)
    const segments = Math.max(1, Math.ceil(size / SEGMENT_BYTES))
    t.equal(sealed.length, size + segments * TAG_BYTES, `${size} bytes: one tag per segment`)
    t.same(await open(key, sealed), plain, `${size} bytes`)
  }
})

t.test('D43: any change at rest is refused as an integrity error', async (t) => {
  const key = randomBytes(32)
  const plain = randomBytes(2 * SEGMENT_BYTES + 100)
  const sealed = await seal(key, plain)
  const whole = SEGMENT_BYTES + TAG_BYTES
  const flipped = Buffer.from(sealed)
  flipped[whole + 10] = (flipped[whole + 10] ?? 0) ^ 1
  const cases: Record<string, Buffer> = {
    'a byte flipped': flipped,
    'cut at a segment end': sealed.subarray(0, 2 * whole),
    'a segment dropped': Buffer.concat([sealed.subarray(0, whole), sealed.subarray(2 * whole)]),
    'segments swapped': Buffer.concat([
      sealed.subarray(whole, 2 * whole),
      sealed.subarray(0, whole),
      sealed.subarray(2 * whole),
    ]),
    'nothing at all': Buffer.alloc(0),
  }
  for (const [name, bytes] of Object.entries(cases)) await t.rejects(open(key, bytes), { code: 'INTEGRITY' }, name)
  await t.rejects(open(randomBytes(32), sealed), { code: 'INTEGRITY' }, 'another key')
})
