// `records`: the administrators' and operators' command. Finds the subcommand, parses its
// options with node:util parseArgs, runs it and turns any failure into one line and a status.
import { messageOf } from './output.js'
import { parseArgs } from 'node:util'
import { isAppError, isOperatorError, usageError, USAGE_EXIT } from '../errors.js'
import { loadDotEnv } from '../app/settings.js'
import type { Command } from './command.js'
import { findCommand, loadCommands, loadCommandsFor } from './registry.js'
import { packageVersion } from './version.js'

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

export async function main(argv: readonly string[]): Promise<number> {
  if (argv[0] === '--version' || argv[0] === '-v') {
    process.stdout.write(`records ${packageVersion()}\n`)
    return 0
  }
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    process.stdout.write(`${overview(await loadCommands())}\n`)
    return argv.length === 0 ? USAGE_EXIT : 0
  }
  const commands = await loadCommandsFor(argv)
  const found = findCommand(commands, argv)
  if (found === undefined) throw usageError(`Orden desconocida '${argv.slice(0, 2).join(' ')}'. Vea records --help`)
  const { command, rest } = found
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${command.help.trim()}\n`)
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
  loadDotEnv()
  return command.run({
    values: parsed.values,
    positionals: parsed.positionals,
    env: process.env,
    cwd: process.cwd(),
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
  })
}

main(process.argv.slice(2)).then(
  (status) => {
    process.exitCode = status
  },
  (error: unknown) => {
    const usage = isOperatorError(error) ? error.exitCode : 1
    process.stderr.write(`records: ${describeFailure(error)}\n`)
    process.exitCode = usage
  },
)
