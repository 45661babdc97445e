// What a `records` subcommand is: a name, its help, its options for node:util parseArgs,
// and a run function. Each file under commands/ exports `commands`; nothing else registers them.
import type { ParseArgsConfig } from 'node:util'

export type OptionSpecs = NonNullable<ParseArgsConfig['options']>

export interface CommandInput {
  readonly values: Readonly<Record<string, string | boolean | (string | boolean)[] | undefined>>
  readonly positionals: readonly string[]
  readonly env: Readonly<Record<string, string | undefined>>
  readonly cwd: string
  readonly stdin: NodeJS.ReadStream
  readonly stdout: NodeJS.WriteStream
  readonly stderr: NodeJS.WriteStream
}

export interface Command {
  /** One or two words: `validate`, `user add`. */
  readonly name: string
  /** One line for `records --help`. */
  readonly summary: string
  /** The usage line and the explanation of each option, for `records <name> --help`. */
  readonly help: string
  readonly options: OptionSpecs
  /** How many positional arguments it takes. */
  readonly positionals: { readonly min: number; readonly max: number }
  /** Resolves to the exit status. */
  run(input: CommandInput): Promise<number>
}


export const stringOption = (input: CommandInput, name: string): string | undefined => {
  const value = input.values[name]
  return typeof value === 'string' ? value : undefined
}

export const flag = (input: CommandInput, name: string): boolean => input.values[name] === true

export const JSON_OPTION: OptionSpecs = { json: { type: 'boolean' } }
