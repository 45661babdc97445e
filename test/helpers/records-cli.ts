// `records <args>` as an operator would run it next to a running service, with the given
// environment on top of the test's and the checkout as its working directory. It runs through
// runCli in the test's own process (cli-in-process.ts); test/integration/cli/support.ts has the
// child process, for what only a process has.
import { runCliInProcess, type CliRun } from './cli-in-process.js'

export type { CliRun }

const ROOT = new URL('../../', import.meta.url).pathname

export function runRecords(env: Record<string, string>, rest: readonly string[]): Promise<CliRun> {
  return runCliInProcess(rest, { cwd: ROOT, env: { ...process.env, ...env } })
}
