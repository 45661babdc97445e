// `records`: the administrators' and operators' command (bin/records.js). Runs run.ts on the
// process's arguments, environment and streams, and exits with the status it answers.
import { runCli } from './run.js'

const { env, stdin, stdout, stderr } = process
void runCli(process.argv.slice(2), { env, cwd: process.cwd(), stdin, stdout, stderr }).then((status) => {
  process.exitCode = status
})
