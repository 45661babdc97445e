// The Node floor is true: the version README.md and package.json state is one that every
// package of the lock file admits, except the few docs/development.md names and explains.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import t from 'tap'

/** The part of npm's `semver` (a dependency of the tools, without its own types here) used below. */
interface Semver {
  minVersion(range: string): { version: string } | null
  satisfies(version: string, range: string): boolean
  valid(version: string): string | null
}
const semver = createRequire(import.meta.url)('semver') as Semver

const ROOT = new URL('../../', import.meta.url)
const read = (path: string): string => readFileSync(new URL(path, ROOT), 'utf8')

interface LockEntry {
  readonly version?: string
  readonly dev?: boolean
  readonly engines?: { readonly node?: string } | readonly string[]
}

/** Packages whose declared engines exclude the floor, each explained in docs/development.md. */
const ALLOWED = new Set(['cookie', 'content-disposition'])

const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node
/** The lowest version of each release line package.json admits (20.19.0, 22.13.0, 24.0.0). */
const floors = engines.split('||').map((range) => semver.minVersion(range.trim())?.version ?? '')

t.test('README.md and the operators guide state the floor of package.json engines', async (t) => {
  const stated = /Node\.js (\d+\.\d+) or newer/
  const lowest = floors[0]?.replace(/\.0$/, '')
  t.equal(stated.exec(read('README.md'))?.[1], lowest, 'README.md')
  t.equal(stated.exec(read('docs/operators.md'))?.[1], lowest, 'docs/operators.md')
})

t.test('every package of the lock file admits each release line of the floor', async (t) => {
  const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, LockEntry> }
  t.ok(floors.length > 0 && floors.every((v) => semver.valid(v)), `floors ${floors.join(', ')}`)
  const excluding: string[] = []
  for (const [path, entry] of Object.entries(lock.packages)) {
    const range = Array.isArray(entry.engines) ? undefined : (entry.engines as { node?: string } | undefined)?.node
    if (path === '' || range === undefined) continue
    const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)
    const refused = floors.filter((floor) => !semver.satisfies(floor, range))
    if (refused.length > 0 && !ALLOWED.has(name)) excluding.push(`${name}@${entry.version} (${range})`)
  }
  t.same(excluding, [], 'no package outside the allow-list excludes the floor')
  const development = read('docs/development.md')
  for (const name of ALLOWED) t.match(development, `\`${name}@`, `docs/development.md explains ${name}`)
})
