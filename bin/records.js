#!/usr/bin/env node
// The `records` command (package.json bin; `npm start` runs `records serve`). It runs the
// TypeScript build in dist/. Run by `npm start`, `npm run records` or `npm run backup`, it first
// rebuilds dist/ when a source is newer (scripts/build-if-stale.mjs, in this process: a few
// stats, no second node process as an npm pre-hook would cost). Run directly (tests, systemd,
// `npx records`) it runs dist/ as it is.
const NPM_SCRIPTS = new Set(['start', 'records', 'backup'])
if (NPM_SCRIPTS.has(process.env.npm_lifecycle_event ?? '')) {
  const stale = await import('../scripts/build-if-stale.mjs').catch((error) => {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error
  })
  const status = stale === undefined ? 0 : stale.buildIfStale()
  if (status !== 0) process.exit(status)
}
import('../dist/src/cli/main.js').catch((error) => {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/src/cli/main.js')) throw error
  process.stderr.write('records: falta la compilación en dist/: ejecute npm run build\n')
  process.exitCode = 1
})
