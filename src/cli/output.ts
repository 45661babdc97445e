// Printing for subcommands: JSON for scripts, lines for people, a progress bar on a terminal.
import type { CommandInput } from './command.js'

/** An error's message, or the thrown value as text: one line for an operator. */
export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

export function printJson(input: CommandInput, value: unknown): void {
  input.stdout.write(`${JSON.stringify(value, null, 2)}\n`)
}

export function printLines(input: CommandInput, lines: readonly string[]): void {
  if (lines.length > 0) input.stdout.write(`${lines.join('\n')}\n`)
}

export interface Progress {
  update(done: number): void
  finish(): void
}

/** A one-line bar on stderr when it is a terminal; silent otherwise (pipes, logs, tests). */
export function createProgress(input: CommandInput, label: string, total: number): Progress {
  const stream = input.stderr
  if (stream.isTTY !== true || total === 0) return { update: () => undefined, finish: () => undefined }
  const width = 30
  let last = -1
  return {
    update(done) {
      const percent = Math.floor((done / total) * 100)
      if (percent === last) return
      last = percent
      const filled = Math.round((done / total) * width)
      stream.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${percent}% (${done}/${total})`)
    },
    finish() {
      stream.write('\n')
    },
  }
}
