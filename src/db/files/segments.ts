// D43: a file encrypted at rest as a sequence of sealed segments: AES-256-GCM under the file's own
// random key, each segment of SEGMENT_BYTES plaintext (the last one shorter, possibly empty) with
// its tag, its number as the nonce (the key seals one file only) and, as associated data, its
// number and whether it is the last: a reordered, dropped or truncated segment fails its tag. A
// segment is verified before any of its bytes is given out, so a download never streams forged data.
import { createCipheriv, createDecipheriv } from 'node:crypto'
import { integrityError } from '../../errors.js'

export const SEGMENT_BYTES = 256 * 1024
export const TAG_BYTES = 16

const ivOf = (index: number): Buffer => {
  const iv = Buffer.alloc(12)
  iv.writeUInt32BE(index, 8)
  return iv
}
const aadOf = (index: number, last: boolean): Buffer => Buffer.from(`${index}:${last ? 'ultimo' : 'sigue'}`)

export function sealSegment(key: Buffer, index: number, last: boolean, plain: Buffer): Buffer {
  const cipher = createCipheriv('aes-256-gcm', key, ivOf(index))
  cipher.setAAD(aadOf(index, last))
  return Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()])
}

/** Throws an integrity error when the segment is not the one sealed at `index` (and `last`). */
export function openSegment(key: Buffer, index: number, last: boolean, sealed: Buffer): Buffer {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, ivOf(index))
    decipher.setAAD(aadOf(index, last))
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES))
    return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)), decipher.final()])
  } catch (error) {
    throw integrityError(
      new Error(`segmento ${index} del fichero: no verifica (alterado o incompleto)`, { cause: error }),
    )
  }
}

/** Bytes in pieces of `size`, the last one shorter, each yielded with whether it is the last. */
async function* pieces(source: AsyncIterable<Buffer | string>, size: number): AsyncGenerator<[Buffer, boolean]> {
  let pending: Buffer[] = []
  let length = 0
  for await (const chunk of source) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
    pending.push(bytes)
    length += bytes.length
    // Strictly more than a piece: the one given is then certainly not the last.
    while (length > size) {
      const all = Buffer.concat(pending)
      yield [all.subarray(0, size), false]
      pending = [all.subarray(size)]
      length -= size
    }
  }
  yield [Buffer.concat(pending), true]
}

/** The sealed segments of `plain`, as it streams. */
export async function* sealedSegments(key: Buffer, plain: AsyncIterable<Buffer | string>): AsyncGenerator<Buffer> {
  let index = 0
  for await (const [piece, last] of pieces(plain, SEGMENT_BYTES)) yield sealSegment(key, index++, last, piece)
}

/** The plaintext of stored sealed segments, each verified before it is given. */
export async function* openedSegments(key: Buffer, sealed: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let index = 0
  for await (const [piece, last] of pieces(sealed, SEGMENT_BYTES + TAG_BYTES)) {
    if (piece.length < TAG_BYTES) throw integrityError(new Error(`segmento ${index} del fichero: incompleto`))
    yield openSegment(key, index++, last, piece)
  }
}

/**
 * `records copy`: stored sealed segments, however they were cut, given back one per segment as
 * stored, each checked under `key` first and its plaintext handed to `plain` (to be hashed).
 */
export async function* checkedSealedSegments(
  key: Buffer,
  sealed: AsyncIterable<Buffer>,
  plain: (bytes: Buffer) => void,
): AsyncGenerator<Buffer> {
  let index = 0
  for await (const [piece, last] of pieces(sealed, SEGMENT_BYTES + TAG_BYTES)) {
    if (piece.length < TAG_BYTES) throw integrityError(new Error(`segmento ${index} del fichero: incompleto`))
    plain(openSegment(key, index++, last, piece))
    yield piece
  }
}
