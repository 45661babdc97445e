// The processes a test starts (`records`, the server, the guides' shells and everything they
// run) without tap's processinfo preload, their coverage recorded by Node itself.
//
// tap adds processinfo to the NODE_OPTIONS of every process a test process spawns (through
// process-on-spawn, whatever the spawn's own env says). In a child that is loader hooks on a
// thread of their own and every module's lines counted: about 1.3 s of a `records` run's 2.2 s
// of CPU, and again in every node a child starts (npx, npm). This listener runs after tap's and
// takes the preload out again; when tap records coverage, NODE_V8_COVERAGE has Node write the
// child's into tap's coverage folder instead (about 0.2 s; dist/'s source maps name the src/
// lines, as processinfo's did). A child that names processinfo in its own arguments (one run
// from the TypeScript sources with the test's execArgv) keeps it and records its coverage so.
import onSpawn from 'process-on-spawn'
import { fileURLToPath } from 'node:url'

const PROCESSINFO = /@tapjs[\\/]processinfo[\\/]/
const COVERAGE = fileURLToPath(new URL('../../.tap/coverage', import.meta.url))

/** NODE_OPTIONS without processinfo's preload (`--import=<it>` or `--import <it>`). */
function withoutProcessinfo(nodeOptions) {
  const kept = []
  for (const option of nodeOptions.split(/\s+/).filter((o) => o !== '')) {
    if (!PROCESSINFO.test(option)) kept.push(option)
    else if (/^"?--(import|loader|experimental-loader)"?$/.test(kept.at(-1) ?? '')) kept.pop()
  }
  return kept.join(' ')
}

onSpawn.addListener((child) => {
  if (child.args.some((arg) => PROCESSINFO.test(arg))) return
  const { NODE_OPTIONS = '', ...env } = child.env
  const nodeOptions = withoutProcessinfo(NODE_OPTIONS)
  child.env = {
    ...env,
    ...(nodeOptions === '' ? {} : { NODE_OPTIONS: nodeOptions }),
    ...(process.env._TAPJS_PROCESSINFO_COVERAGE_ === '1' ? { NODE_V8_COVERAGE: COVERAGE } : {}),
  }
})
