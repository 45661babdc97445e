#!/usr/bin/env node
// The `records` command (package.json bin; `npm start` runs `records serve`). It runs the
// TypeScript build in dist/, rebuilt first when a source is newer (scripts/build-if-stale.mjs,
// in this process: a few stats, no second node process). Installed without scripts/ (a package
// of dist/ only), it runs dist/ as it is.
const stale = await import('../scripts/build-if-stale.mjs').catch((error) => {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error
})
const status = stale === undefined ? 0 : stale.buildIfStale()
if (status !== 0) process.exit(status)
import('../dist/src/cli/main.js').catch((error) => {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/src/cli/main.js')) throw error
  process.stderr.write('records: falta la compilación en dist/: ejecute npm run build\n')
  process.exitCode = 1
})
