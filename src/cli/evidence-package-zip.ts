// The court package's zip (D43), streamed both ways: written with yazl, each original going
// through a SHA-256 on its way in, never whole in memory; read back with yauzl, each entry
// re-hashed as it streams. The package's content is records/evidence-package.ts's.
import { createHash } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { link, open, unlink } from 'node:fs/promises'
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
  const entries = new Map<string, yauzl.Entry>()
  const repeated: string[] = []
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('entry', (entry: yauzl.Entry) => {
        if (entries.has(entry.fileName)) repeated.push(entry.fileName)
        else entries.set(entry.fileName, entry)
        zip.readEntry()
      })
      zip.on('end', () => resolve())
      zip.on('error', reject)
      zip.readEntry()
    })
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
