// D43: an upload as it streams: its size held to the field's `max_size`, its first bytes checked
// against the declared type, its SHA-256 computed. Nothing is buffered beyond the segment being sealed.
import { createHash } from 'node:crypto'
import { FILE_SIGNATURE_BYTES, FILE_SIGNATURES } from '../../compile/field-types/file.js'
import type { FieldSpec } from '../../compile/types.js'
import { fileRejected, fileTooLarge } from '../../errors.js'

/** What the stream turned out to be, known once it has been read to its end. */
export interface Ingested {
  sha256: string
  size: number
}

/**
 * `body` passed through, refused (as it streams) once it exceeds the field's `max_size` (413) or
 * when its first bytes are not `type` (422); `result` filled at its end.
 */
export async function* ingest(
  field: FieldSpec,
  type: string,
  body: AsyncIterable<Buffer | string>,
  result: Ingested,
): AsyncGenerator<Buffer> {
  const maxSize = field.def.maxSize ?? 0
  const hash = createHash('sha256')
  const matches = FILE_SIGNATURES[type]
  let head: Buffer | undefined = Buffer.alloc(0)
  let size = 0
  const checkHead = (bytes: Buffer) => {
    if (matches === undefined || !matches(bytes))
      throw fileRejected(field.name, `el contenido no es del tipo declarado (${type})`)
  }
  for await (const chunk of body) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
    size += bytes.length
    if (size > maxSize) throw fileTooLarge(field.name, maxSize)
    if (head !== undefined) {
      head = Buffer.concat([head, bytes])
      if (head.length >= FILE_SIGNATURE_BYTES) {
        checkHead(head)
        head = undefined
      }
    }
    hash.update(bytes)
    yield bytes
  }
  if (head !== undefined) checkHead(head)
  result.sha256 = hash.digest('hex')
  result.size = size
}
