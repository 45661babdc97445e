// `npm run bench` with a wrong option: the reason and the usage, status 2, never a stack.
import { spawnSync } from 'node:child_process'
import t from 'tap'
import { childExecArgv, distIsCurrent, WITHOUT_TS_NODE } from '../../helpers/child-env.js'

const ROOT = new URL('../../../', import.meta.url).pathname

function bench(...args: string[]) {
  const entry = distIsCurrent() ? [`${ROOT}dist/scripts/bench.js`] : [...childExecArgv(), `${ROOT}scripts/bench.ts`]
  return spawnSync(process.execPath, [...entry, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...WITHOUT_TS_NODE },
    encoding: 'utf8',
  })
}

t.test('a wrong option ends the bench before it starts anything, with its reason and the usage', async (t) => {
  const cases: [string[], RegExp][] = [
    [['--bogus'], /^bench: Unknown option '--bogus'/],
    [['--instances', '1,1'], /^bench: --instances names a count twice/],
  ]
  for (const [args, reason] of cases) {
    const run = bench(...args)
    t.equal(run.status, 2, `${args.join(' ')}: status 2`)
    t.match(run.stderr, reason)
    t.match(run.stderr, /Usage: npm run bench/)
    t.notMatch(run.stderr, /\n\s+at /, 'no stack')
  }
  const help = bench('--help')
  t.equal(help.status, 0)
  t.match(help.stdout, /^Usage: npm run bench/)
})
