// `records`: the administrators' and operators' command (bin/records.js). Runs run.ts on the
// process's arguments, environment and streams, and exits with the status it answers. `.env` is
// loaded into the process's environment first, as `npm start` does: what reads that environment
// rather than a command's (the test-only bcrypt cost check in db/records/codec.ts, which refuses
// it outside the tests; the PostgreSQL driver's PG* variables) sees the same as the service.
import { loadDotEnv } from '../app/settings.js'
import { runCli } from './run.js'

loadDotEnv()
const { env, stdin, stdout, stderr } = process
void runCli(process.argv.slice(2), { env, cwd: process.cwd(), stdin, stdout, stderr }).then((status) => {
  process.exitCode = status
})
