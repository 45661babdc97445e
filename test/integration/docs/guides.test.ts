// The commands of the three audience guides work as written, against a real
// instance. Conventions, also described in docs/development.md ("The guides are tested"):
// - a ```sh block runs; ```console / ```text / ```yaml blocks are shown, never run;
// - one guide's blocks run in order in one shell session: variables and functions set by a block
//   (B, TOKEN, ID...) reach the later ones; the working directory is a temp directory under the
//   checkout's test-artifacts/ holding a copy of modules.yaml and data/;
// - blocks run exactly as printed, with nothing added to the PATH: `npx records ...` finds the
//   command as it does in a fresh clone (npm walks up to the checkout's package.json `bin`), and
//   a bare `records ...` fails as it would for the reader; only npm's lifecycle scripts are off
//   (`npm_config_ignore_scripts`): npx's first link of the checkout would otherwise rebuild dist/
//   under the other tests;
// - the guides say http://127.0.0.1:3000; the test substitutes the instance's address;
// - `read` prompts get the first superadmin's username and password, one per line, unless
//   `<!-- guide-test: stdin=line1|line2 -->` gives other lines;
// - every curl carries `# → NNN`, the status it must answer, in the order the calls run;
//   every block must end with exit status 0;
// - `<!-- guide-test: restart -->` before a block restarts the instance first (a changed
//   modules.yaml), `<!-- guide-test: sqlite -->` runs the block on SQLite only; directives combine
//   (`<!-- guide-test: restart sqlite -->`).
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { freePort } from '../../helpers/free-port.js'
import { databaseFor, ON_POSTGRES, redisEnv, urlOf } from '../../helpers/postgres.js'
import { startServerProcess } from '../../helpers/server-process.js'

const ROOT = new URL('../../../', import.meta.url).pathname
const GUIDES = ['docs/consumers.md', 'docs/administrators.md', 'docs/operators.md']
const ADMIN_PASSWORD = 'guia-primera-hora-2026'
const DOCUMENTED_ORIGIN = 'http://127.0.0.1:3000'

export interface GuideBlock {
  readonly line: number
  readonly code: string
  readonly directives: readonly string[]
  /** The statuses of the `# → NNN` comments, in order. */
  readonly statuses: readonly number[]
}

/** The ```sh blocks of a guide, with the `<!-- guide-test: ... -->` directives just above each. */
export function runnableBlocks(markdown: string): GuideBlock[] {
  const blocks: GuideBlock[] = []
  const fence = /^(?:<!-- guide-test: ([^>\n]+?) -->\n)?```sh\n([\s\S]*?)^```$/gm
  for (const match of markdown.matchAll(fence)) {
    const code = match[2] as string
    blocks.push({
      line: markdown.slice(0, match.index).split('\n').length,
      code,
      directives: (match[1] ?? '').split(/[ ,]+/).filter(Boolean),
      statuses: [...code.matchAll(/# → (\d{3})\b/g)].map((m) => Number(m[1])),
    })
  }
  return blocks
}

/** What the block's `read` prompts receive: `stdin=a|b` lines, or the first superadmin's credentials. */
function inputOf(block: GuideBlock): string {
  const given = block.directives.find((d) => d.startsWith('stdin='))
  return `${(given === undefined ? ['admin', ADMIN_PASSWORD] : given.slice('stdin='.length).split('|')).join('\n')}\n`
}

/** `records serve` from dist/ (as `npm start` runs it; `npm run build` first), on the guide's port and directory. */
const startInstance = (t: Test, work: string, env: Record<string, string>) =>
  startServerProcess(t, { entry: 'dist', cwd: work, env })

// Variables a bare bash already has: everything else a block sets is carried to the next one.
const PRISTINE = new Set(spawnSync('bash', ['-c', 'compgen -v'], { encoding: 'utf8' }).stdout.split('\n'))

/** Runs before each block: the earlier blocks' state in, this block's state out at its end. */
function prelude(work: string): string {
  const state = join(work, '.guide-state')
  const pristine = [...PRISTINE].join(' ')
  return [
    `[ -f ${state} ] && source ${state}`,
    'set -eo pipefail',
    // Each call's status goes to a file, after whatever the command itself prints.
    `curl() { command curl -w '%{stderr}%{http_code}\\n' "$@" 2>>${join(work, '.guide-status')}; }`,
    '__save() {',
    '  declare -f',
    '  for v in $(compgen -v); do',
    `    case " ${pristine} " in *" $v "*) ;; *) [[ $v == __* ]] || declare -p "$v" 2>/dev/null;; esac`,
    '  done',
    '}',
    `trap '__save > ${state}' EXIT`,
  ].join('\n')
}

for (const guide of GUIDES) {
  t.test(`${guide}: every sh block runs against a live instance and answers the documented statuses`, async (t) => {
    const blocks = runnableBlocks(readFileSync(join(ROOT, guide), 'utf8'))
    t.ok(blocks.length > 0, 'the guide has runnable blocks')
    // Under the checkout, so that `npx records` resolves its package.json as from a clone's root.
    mkdirSync(join(ROOT, 'test-artifacts'), { recursive: true })
    const work = mkdtempSync(join(ROOT, 'test-artifacts', 'guide-'))
    t.teardown(() => rmSync(work, { recursive: true, force: true }))
    copyFileSync(join(ROOT, 'modules.yaml'), join(work, 'modules.yaml'))
    const port = await freePort()
    const origin = `http://127.0.0.1:${port}`
    const env: Record<string, string> = {
      PORT: String(port),
      DATA_DIR: join(work, 'data'),
      MODULES_FILE: join(work, 'modules.yaml'),
      ADMIN_PASSWORD,
      RATE_LIMIT_IP_PER_MINUTE: '100000',
      RATE_LIMIT_TOKEN_PER_HOUR: '100000',
      LOGIN_MAX_FAILURES: '1000',
    }
    if (ON_POSTGRES)
      Object.assign(env, { DATABASE_URL: urlOf(await databaseFor(env['DATA_DIR'] as string)) }, redisEnv())
    let server = await startInstance(t, work, env)

    for (const [index, block] of blocks.entries()) {
      const where = `${guide}:${block.line} (block ${index + 1})`
      if (block.directives.includes('sqlite') && ON_POSTGRES) continue
      if (block.directives.includes('restart')) {
        await server.stop()
        server = await startInstance(t, work, env)
      }
      writeFileSync(join(work, '.guide-status'), '')
      const script = `${prelude(work)}\n${block.code.replaceAll(DOCUMENTED_ORIGIN, origin)}`
      const run = spawnSync('bash', ['-c', script], {
        cwd: work,
        // npx links the checkout into its cache the first time it runs `records` from it, and
        // would run its `prepare` (the build) in the checkout: dist/ rewritten under the tests
        // running beside this one. The link itself, and so what the block runs, is the same.
        env: { ...process.env, ...env, npm_config_ignore_scripts: 'true' },
        input: inputOf(block),
        encoding: 'utf8',
        timeout: 60_000,
      })
      const statuses = readFileSync(join(work, '.guide-status'), 'utf8')
        .split('\n')
        .filter((line) => /^\d{3}$/.test(line))
        .map(Number)
      const output = `--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}\n--- server\n${server.output().slice(-2000)}`
      t.equal(run.status, 0, `${where} exits 0`, { output })
      t.same(statuses, block.statuses, `${where} answers ${block.statuses.join(', ') || 'no HTTP call'}`, { output })
      if (run.status !== 0) break // later blocks depend on this one
    }
  })
}
