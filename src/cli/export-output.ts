// Where an export writes (`records export`, `records audit export`): standard output or a file
// readable by its owner only, written with backpressure. A reader that stopped reading
// (`records export m | head`) ends the export quietly: EPIPE is not an error.
import { createWriteStream } from 'node:fs'
import { resolve } from 'node:path'

export interface ExportOutput {
  /** Resolves once the text is taken (or at once when the reader has gone); rejects on a write error. */
  write(text: string): Promise<void>
  /** The reader went away: stop producing, say nothing. */
  readonly broken: boolean
  /** A write error other than a closed pipe, once one happened. */
  readonly failure: unknown
  /** Flushes and closes a file; standard output stays open. */
  end(): Promise<void>
}

const isBrokenPipe = (error: unknown): boolean => (error as { code?: string } | null)?.code === 'EPIPE'

export function openExportOutput(stdout: NodeJS.WriteStream, cwd: string, out: string | undefined): ExportOutput {
  const stream = out === undefined ? stdout : createWriteStream(resolve(cwd, out), { mode: 0o600 })
  let broken = false
  let failure: unknown
  stream.on('error', (error: unknown) => {
    if (isBrokenPipe(error)) broken = true
    else failure ??= error
  })
  return {
    write: (text) =>
      new Promise<void>((done, fail) => {
        if (broken) return done()
        if (failure !== undefined) return fail(failure)
        const settle = () => {
          stream.off('drain', settle).off('error', settle).off('close', settle)
          if (failure !== undefined) fail(failure)
          else done()
        }
        if (stream.write(text)) done()
        else stream.on('drain', settle).on('error', settle).on('close', settle)
      }),
    get broken() {
      return broken
    },
    get failure() {
      return failure
    },
    end: async () => {
      if (out !== undefined) await new Promise<void>((done) => stream.end(done))
    },
  }
}
