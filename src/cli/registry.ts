// Every file under commands/ is a subcommand: adding one is adding a file.
import { existsSync, readdirSync } from 'node:fs'
import type { Command } from './command.js'

const isCommandFile = (name: string): boolean => /\.(js|ts)$/.test(name) && !name.endsWith('.d.ts')

export async function loadCommands(): Promise<Command[]> {
  const dir = new URL('./commands/', import.meta.url)
  const commands: Command[] = []
  for (const file of readdirSync(dir).filter(isCommandFile).sort()) {
    const loaded = (await import(new URL(file, dir).href)) as { commands?: readonly Command[] }
    commands.push(...(loaded.commands ?? []))
  }
  return commands.sort((a, b) => a.name.localeCompare(b.name))
}

/**
 * The commands of the file named by the first argument (`user` -> commands/user.js), else all:
 * importing every command loads Fastify, Kysely and the drivers, and `records validate`
 * should start in a fraction of a second. A command's file is its first word.
 */
export async function loadCommandsFor(argv: readonly string[]): Promise<Command[]> {
  const first = argv[0] ?? ''
  if (/^[a-z][a-z-]*$/.test(first)) {
    const dir = new URL('./commands/', import.meta.url)
    for (const ext of ['js', 'ts']) {
      const file = new URL(`${first}.${ext}`, dir)
      if (!existsSync(file)) continue
      const loaded = (await import(file.href)) as { commands?: readonly Command[] }
      const commands = [...(loaded.commands ?? [])]
      if (findCommand(commands, argv) !== undefined) return commands
    }
  }
  return loadCommands()
}

/** The command named by the first one or two arguments, and the arguments after its name. */
export function findCommand(
  commands: readonly Command[],
  argv: readonly string[],
): { command: Command; rest: string[] } | undefined {
  const two = commands.find((c) => c.name === `${argv[0]} ${argv[1]}`)
  if (two !== undefined) return { command: two, rest: argv.slice(2) }
  const one = commands.find((c) => c.name === argv[0])
  return one === undefined ? undefined : { command: one, rest: argv.slice(1) }
}
