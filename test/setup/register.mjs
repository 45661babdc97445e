// Preloaded into every test process (package.json "tap"."node-arg") and, through
// process.execArgv, into the child processes the tests start from the TypeScript sources.
import { register } from 'node:module'

register('./esbuild-hooks.mjs', import.meta.url)

// tap's processinfo preload taken out of every child again (child-coverage.mjs).
await import('./child-coverage.mjs')

// bcrypt at cost 4 instead of 10 (src/db/records/codec.ts TEST_BCRYPT_ROUNDS): about a
// millisecond per hash instead of 140. Honoured only in tap's test processes (TAP=1) and the
// children they start; a test that measures bcrypt's cost (D19) unsets it (test/helpers/api.ts).
process.env['RECORDS_TEST_BCRYPT_ROUNDS'] ??= '4'
