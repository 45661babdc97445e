// `records <argv>` as a function: finds the subcommand, parses its options with node:util
// parseArgs, runs it against the environment and streams it is given and turns any failure into
// one line and a status. main.ts gives it the process's own, `.env` loaded into its environment
// first; nothing here touches `process`.
import { parseArgs } from 'node:util'
import { isAppError, isOperatorError, usageError, USAGE_EXIT } from '../errors.js'
import type { Command, CommandInput } from './command.js'
import { messageOf } from './output.js'
import { findCommand, loadCommands, loadCommandsFor } from './registry.js'
import { packageVersion } from './version.js'

/** What a run reads and writes: the environment, the working directory and the three streams. */
export type CliIo = Pick<CommandInput, 'env' | 'cwd' | 'stdin' | 'stdout' | 'stderr'>

function overview(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length))
  return [
    'Uso: records <orden> [opciones]   (records <orden> --help para el detalle; records --version)',
    '',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Configuración: las variables de entorno del servicio (DATA_DIR, MODULES_FILE, DATABASE_URL,',
    'RECORDS_ENCRYPTION_KEY...) y el fichero .env del directorio actual, como `npm start`.',
    'Estado de salida: 0 correcto, 1 fallo o problemas encontrados, 2 uso incorrecto.',
  ].join('\n')
}

/** The one line a failure prints: the reason, never a stack. */
export function describeFailure(error: unknown): string {
  if (isOperatorError(error)) return error.message
  if (isAppError(error))
    return [
      error.message,
      ...(error.details ?? []).filter((d) => !error.message.includes(d.message)).map((d) => `  - ${d.message}`),
    ].join('\n')
  return messageOf(error)
}

async function dispatch(argv: readonly string[], io: CliIo): Promise<number> {
  if (argv[0] === '--version' || argv[0] === '-v') {
    io.stdout.write(`records ${packageVersion()}\n`)
    return 0
  }
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    io.stdout.write(`${overview(await loadCommands())}\n`)
    return argv.length === 0 ? USAGE_EXIT : 0
  }
  const commands = await loadCommandsFor(argv)
  const found = findCommand(commands, argv)
  if (found === undefined) throw usageError(`Orden desconocida '${argv.slice(0, 2).join(' ')}'. Vea records --help`)
  const { command, rest } = found
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(`${command.help.trim()}\n`)
    return 0
  }
  let parsed: ReturnType<typeof parseArgs>
  try {
    parsed = parseArgs({ args: rest, options: command.options, allowPositionals: true, strict: true })
  } catch (error) {
    const option = /'(-[^']*)'/.exec((error as Error).message)?.[1]
    const code = (error as { code?: string }).code
    const reason =
      code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION'
        ? `Opción desconocida '${option}'`
        : code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE'
          ? `Valor no válido para la opción '${option}'`
          : 'Argumentos no válidos'
    throw usageError(`${reason}. Vea records ${command.name} --help`)
  }
  const { min, max } = command.positionals
  if (parsed.positionals.length < min || parsed.positionals.length > max)
    throw usageError(`Número de argumentos incorrecto. Vea records ${command.name} --help`)
  return command.run({ ...io, values: parsed.values, positionals: parsed.positionals })
}

/** Resolves to the exit status: 0 done, 1 failed or problems found, 2 wrong usage. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    return await dispatch(argv, io)
  } catch (error) {
    io.stderr.write(`records: ${describeFailure(error)}\n`)
    return isOperatorError(error) ? error.exitCode : 1
  }
}
