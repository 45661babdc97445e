// The court package's zip (D43), streamed both ways: written with yazl, each original going
// through a SHA-256 on its way in, never whole in memory; read back with yauzl, each entry
// re-hashed as it streams. The package's content is records/evidence-package.ts's.
import { createHash } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { link, open, unlink, type FileHandle } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { Readable } from 'node:stream'
import yauzl from 'yauzl'
import { ZipFile } from 'yazl'
import { commandFailed } from '../errors.js'
import { messageOf } from './output.js'

/** An original to put in the zip: where, its bytes, and the digest and size they must have. */
export interface ZipOriginal {
  readonly path: string
  readonly sha256: string
  readonly size: number
  /** How an error names it: `campo/n`. */
  readonly label: string
  bytes(): AsyncIterable<Buffer>
}

/** A small file of the package's own, written after the originals. */
export interface ZipText {
  readonly name: string
  readonly text: string
}

/** The bytes of `file`, hashed as they pass; an error names the file when they differ from its upload. */
async function* checked(file: ZipOriginal, done: () => void): AsyncGenerator<Buffer> {
  const hash = createHash('sha256')
  let size = 0
  try {
    for await (const chunk of file.bytes()) {
      hash.update(chunk)
      size += chunk.length
      yield chunk
    }
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error
    throw commandFailed(`El fichero ${file.label} no se puede leer: ${messageOf(cause)}. Vea records files verify`)
  }
  const sha256 = hash.digest('hex')
  if (sha256 !== file.sha256 || size !== file.size)
    throw commandFailed(
      `El fichero ${file.label} no es el que se subió (SHA-256 ${sha256}, ${size} bytes; se esperaba ${file.sha256}, ${file.size}): ` +
        'no se empaqueta una prueba alterada. Vea records files verify',
    )
  done()
}

/**
 * Writes the zip to `target`, never over an existing file: the originals first, then, once every
 * one has passed with its upload's digest, the texts `finish` returns (it may write to the
 * database: the originals are all in by then). The zip is written beside the target as
 * `.<name>.parte` (mode 0600, created only if absent), flushed, and linked to its name only when
 * complete; a failure removes it, but only if this run created it: an existing part file (another
 * run's, or a killed one's) is named in the error and left alone.
 */
export async function writePackageZip(
  target: string,
  originals: readonly ZipOriginal[],
  finish: () => Promise<readonly ZipText[]>,
  mtime: Date,
): Promise<void> {
  const part = join(dirname(target), `.${basename(target)}.parte`)
  const zip = new ZipFile()
  let fail: (error: unknown) => void = () => undefined
  const failed = new Promise<never>((_, reject) => (fail = reject))
  failed.catch(() => undefined)
  let output: ReturnType<typeof createWriteStream> | undefined
  // Only a part file this run created is removed: an existing one may be another run's.
  let created = false
  try {
    // Opened before anything is read or logged: an existing part file stops the run here.
    const handle = await open(part, 'wx', 0o600)
    created = true
    output = createWriteStream(part, { fd: handle })
    const closed = new Promise<void>((resolve) => output?.on('close', resolve))
    output.on('error', fail)
    zip.on('error', fail)
    zip.outputStream.pipe(output)
    const passed = originals.map(
      (file) =>
        new Promise<void>((resolve) =>
          zip.addReadStreamLazy(file.path, { compress: false, mtime, size: file.size }, (ready) => {
            const stream = Readable.from(checked(file, resolve))
            stream.on('error', fail)
            ready(null, stream)
          }),
        ),
    )
    await Promise.race([Promise.all(passed), failed])
    for (const { name, text } of await finish()) zip.addBuffer(Buffer.from(text), name, { mtime })
    zip.end()
    await Promise.race([closed, failed])
    const written = await open(part, 'r')
    await written.sync().finally(() => written.close())
    await link(part, target).catch((error: unknown) => {
      throw commandFailed(`No se pudo escribir ${target}: ${messageOf(error)} (no se sobrescribe un fichero)`)
    })
    await unlink(part)
  } catch (error) {
    output?.destroy()
    if (created) await unlink(part).catch(() => undefined)
    if ((error as NodeJS.ErrnoException).code === 'EEXIST' && !created)
      throw commandFailed(
        `Ya existe ${part}: es de otro records package en curso o de uno interrumpido, y contiene pruebas descifradas. ` +
          'Si no hay otro en curso, bórrelo y repita',
      )
    // A failure of the disk (no folder, no space, no permission): said as the command's.
    if ((error as NodeJS.ErrnoException).syscall !== undefined)
      throw commandFailed(`No se pudo escribir ${target}: ${messageOf(error)}`)
    throw error
  }
}

/** A zip opened for reading: its entries by name, and each entry's bytes on demand. */
export interface PackageZip {
  readonly names: readonly string[]
  /** What in the file's layout no package has (see layoutProblems), each one line. */
  readonly layout: readonly string[]
  /** The central directory's record of `name` (a map lookup): how it is stored and its size. */
  entry(name: string): { readonly stored: boolean; readonly size: number } | undefined
  /** Names that appear more than once (a zip may hold them; a package never does). */
  readonly repeated: readonly string[]
  /** The entry's bytes, whole: for the package's own small files (at most `max` bytes). */
  read(name: string, max: number): Promise<Buffer>
  /** The entry streamed through SHA-256. */
  digest(name: string): Promise<{ sha256: string; size: number }>
  close(): void
}

/** Opens `file` as a zip; a file that is not one is the command's failure. */
export async function openPackageZip(file: string): Promise<PackageZip> {
  let zip: yauzl.ZipFile
  try {
    zip = await yauzl.openPromise(file, { lazyEntries: true, autoClose: false, validateEntrySizes: true })
  } catch (error) {
    throw commandFailed(`${file} no es un paquete: no se puede abrir como zip (${messageOf(error)})`)
  }
  // yauzl 3 starts its cursor at the central directory's offset and has read no entry yet.
  const centralOffset = (zip as unknown as { readEntryCursor: number }).readEntryCursor
  const entries = new Map<string, yauzl.Entry>()
  const all: yauzl.Entry[] = []
  const repeated: string[] = []
  let layout: string[]
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('entry', (entry: yauzl.Entry) => {
        all.push(entry)
        if (entries.has(entry.fileName)) repeated.push(entry.fileName)
        else entries.set(entry.fileName, entry)
        zip.readEntry()
      })
      zip.on('end', () => resolve())
      zip.on('error', reject)
      zip.readEntry()
    })
    layout = await layoutProblems(file, zip, all, centralOffset)
  } catch (error) {
    zip.close()
    throw commandFailed(`${file} no es un paquete: su índice de zip está dañado (${messageOf(error)})`)
  }
  const stream = async (name: string): Promise<Readable> => {
    const entry = entries.get(name)
    if (entry === undefined) throw commandFailed(`${name}: no está en el zip`)
    return zip.openReadStreamPromise(entry)
  }
  return {
    names: [...entries.keys()],
    repeated,
    layout,
    entry(name) {
      const entry = entries.get(name)
      return entry === undefined ? undefined : { stored: entry.compressionMethod === 0, size: entry.uncompressedSize }
    },
    async read(name, max) {
      const entry = entries.get(name)
      if (entry !== undefined && entry.uncompressedSize > max)
        throw commandFailed(`${name} ocupa ${entry.uncompressedSize} bytes: no es el de un paquete`)
      const chunks: Buffer[] = []
      for await (const chunk of await stream(name)) chunks.push(chunk as Buffer)
      return Buffer.concat(chunks)
    },
    async digest(name) {
      const hash = createHash('sha256')
      let size = 0
      for await (const chunk of await stream(name)) {
        hash.update(chunk as Buffer)
        size += (chunk as Buffer).length
      }
      return { sha256: hash.digest('hex'), size }
    },
    close: () => zip.close(),
  }
}

const DATA_DESCRIPTOR = 0x08074b50

/** The length of entry's data descriptor at `at` (0 without one), read from the file. */
async function descriptorLength(file: FileHandle, entry: yauzl.Entry, at: number): Promise<number> {
  if ((entry.generalPurposeBitFlag & 0x8) === 0) return 0
  const bytes = Buffer.alloc(24)
  const { bytesRead } = await file.read(bytes, 0, 24, at)
  // The signature is optional; the sizes are 4 bytes each, or 8 in ZIP64.
  const start = bytesRead >= 4 && bytes.readUInt32LE(0) === DATA_DESCRIPTOR ? 4 : 0
  const sizes = (wide: boolean): [number, number] | undefined => {
    const end = start + 4 + (wide ? 16 : 8)
    if (bytesRead < end) return undefined
    return wide
      ? [Number(bytes.readBigUInt64LE(start + 4)), Number(bytes.readBigUInt64LE(start + 12))]
      : [bytes.readUInt32LE(start + 4), bytes.readUInt32LE(start + 8)]
  }
  const matches = (found: [number, number] | undefined) =>
    found !== undefined && found[0] === entry.compressedSize && found[1] === entry.uncompressedSize
  if (bytesRead >= start + 4 && bytes.readUInt32LE(start) === entry.crc32) {
    if (matches(sizes(false))) return start + 12
    if (matches(sizes(true))) return start + 20
  }
  throw commandFailed(`el descriptor de datos de ${entry.fileName} no corresponde a su entrada`)
}

/**
 * What a package's zip never has, read from the file itself and not only from its central
 * directory (all that an unzip tool lists): every local entry one of the central directory's,
 * back to back from the first byte to the directory, so nothing is spliced in unlisted; the local
 * header naming the same file as the central one; no folders; no comment.
 */
async function layoutProblems(
  path: string,
  zip: yauzl.ZipFile,
  entries: readonly yauzl.Entry[],
  centralOffset: number,
): Promise<string[]> {
  const problems: string[] = []
  if (zip.comment !== '') problems.push('el zip lleva un comentario: un paquete no tiene')
  if (!Number.isSafeInteger(centralOffset)) return [...problems, 'no se encuentra el directorio central del zip']
  const file = await open(path, 'r')
  try {
    let cursor = 0
    for (const entry of [...entries].sort((a, b) => a.relativeOffsetOfLocalHeader - b.relativeOffsetOfLocalHeader)) {
      if (entry.fileName.endsWith('/')) problems.push(`${entry.fileName}: un paquete no tiene entradas de carpeta`)
      if (entry.relativeOffsetOfLocalHeader !== cursor) {
        problems.push(
          entry.relativeOffsetOfLocalHeader > cursor
            ? `hay ${entry.relativeOffsetOfLocalHeader - cursor} bytes antes de ${entry.fileName} que no son de ninguna entrada del índice`
            : `${entry.fileName} se solapa con la entrada anterior`,
        )
      }
      const local = await zip.readLocalFileHeaderPromise(entry)
      if (local.fileName.toString('utf8') !== entry.fileName)
        problems.push(
          `la cabecera local de ${entry.fileName} nombra otro fichero (${JSON.stringify(local.fileName.toString('utf8'))})`,
        )
      const end = local.fileDataStart + entry.compressedSize
      cursor = end + (await descriptorLength(file, entry, end))
    }
    if (cursor !== centralOffset)
      problems.push(
        cursor < centralOffset
          ? `hay ${centralOffset - cursor} bytes antes del índice del zip que no son de ninguna entrada del índice`
          : 'las entradas se solapan con el índice del zip',
      )
  } finally {
    await file.close()
  }
  return problems
}
