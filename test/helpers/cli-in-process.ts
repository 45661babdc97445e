// `records <args>` run in the test's own process through runCli (src/cli/run.ts), the function
// the `records` binary runs on its process's arguments, environment and streams. Standard input
// is the given text (a pipe, not a terminal); what the command writes is collected. `.env` is
// the binary's to load (main.ts): a run here sees the environment it is given and nothing else.
import { PassThrough, Readable } from 'node:stream'
import { runCli } from '../../src/cli/run.js'
import { TEST_BCRYPT_ROUNDS } from '../../src/db/records/codec.js'

export interface CliRun {
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
}

function collector(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough()
  const chunks: Buffer[] = []
  stream.on('data', (chunk: Buffer) => chunks.push(chunk))
  return { stream, text: () => Buffer.concat(chunks).toString() }
}

/**
 * What the service reads from its process's environment, not from the one a command is given
 * (the suite's bcrypt cost, src/db/records/codec.ts): a run that sets them otherwise must be a
 * process, or it would test this process's values instead.
 */
const PROCESS_ONLY = [TEST_BCRYPT_ROUNDS, 'TAP', 'NODE_ENV']

export async function runCliInProcess(
  args: readonly string[],
  options: { env: Record<string, string | undefined>; cwd: string; input?: string },
): Promise<CliRun> {
  const differs = PROCESS_ONLY.filter((name) => (options.env[name] ?? '') !== (process.env[name] ?? ''))
  if (differs.length > 0) throw new Error(`${differs.join(', ')} only apply to a records process: run it as one`)
  const stdout = collector()
  const stderr = collector()
  const status = await runCli(args, {
    env: options.env,
    cwd: options.cwd,
    stdin: Readable.from([options.input ?? '']) as unknown as NodeJS.ReadStream,
    stdout: stdout.stream as unknown as NodeJS.WriteStream,
    stderr: stderr.stream as unknown as NodeJS.WriteStream,
  })
  return { status, stdout: stdout.text(), stderr: stderr.text() }
}
