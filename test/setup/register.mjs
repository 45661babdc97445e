// Preloaded into every test process (package.json "tap"."node-arg") and, through
// process.execArgv, into the child processes the tests start from the TypeScript sources.
import { register } from 'node:module'

register('./esbuild-hooks.mjs', import.meta.url)
