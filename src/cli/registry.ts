// Every file under commands/ is a subcommand: adding one is adding a file.
import { readdirSync } from 'node:fs'
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

/** The command named by the first one or two arguments, and the arguments after its name. */
export function findCommand(commands: readonly Command[], argv: readonly string[]): { command: Command; rest: string[] } | undefined {
  const two = commands.find((c) => c.name === `${argv[0]} ${argv[1]}`)
  if (two !== undefined) return { command: two, rest: argv.slice(2) }
  const one = commands.find((c) => c.name === argv[0])
  return one === undefined ? undefined : { command: one, rest: argv.slice(1) }
}
