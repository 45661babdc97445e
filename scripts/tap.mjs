// `tap` for `npm test` and the PostgreSQL half (scripts/test-postgres.mjs), with its arguments.
//
// tap's TypeScript plugin preloads ts-node into every test process on Node < 22, about 0.7 s of
// CPU each, although test/setup/register.mjs (esbuild) transpiles every source before ts-node
// sees it. The plugin's preload skips ts-node when TAP_TYPE_STRIP_ONLY is 1, but tap sets it to 0
// on Node < 22 before it starts a test; a preload in NODE_OPTIONS runs before tap's own and sets
// it back. Nothing a test checks changes: `npx tap <file>` runs the same tests, only slower.
import { spawnSync } from 'node:child_process'

const skipTsNode = "--import=data:text/javascript,process.env.TAP_TYPE_STRIP_ONLY='1'"
const result = spawnSync('npx', ['tap', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} ${skipTsNode}`.trim() },
})
process.exit(result.status ?? 1)
