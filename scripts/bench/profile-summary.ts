// Summarises a V8 .cpuprofile (node --cpu-prof): the functions with the most self
// time, and the share of a few groups (SQLite driver, fsync on commit, crypto, JSON, Fastify).
//   node dist/scripts/bench/profile-summary.js <file.cpuprofile> [--top 25]
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'

interface ProfileNode {
  readonly id: number
  readonly callFrame: { functionName: string; url: string; lineNumber: number }
  readonly children?: readonly number[]
}
interface Profile {
  readonly nodes: readonly ProfileNode[]
  readonly samples: readonly number[]
  readonly timeDeltas: readonly number[]
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '25' } },
})
const file = positionals[0]
if (file === undefined) throw new Error('usage: profile-summary <file.cpuprofile> [--top N]')
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
const byId = new Map(profile.nodes.map((n) => [n.id, n]))
const selfUs = new Map<number, number>()
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)))
const total = [...selfUs.values()].reduce((a, b) => a + b, 0)

const where = (n: ProfileNode) => {
  const url = n.callFrame.url.replace(/^file:\/\//, '').replace(/.*\/node_modules\//, '')
  return `${n.callFrame.functionName || '(anonymous)'} ${url === '' ? '' : `${url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber + 1}`}`
}
const byFunction = new Map<string, number>()
for (const [id, us] of selfUs) {
  const node = byId.get(id)
  if (node !== undefined) byFunction.set(where(node), (byFunction.get(where(node)) ?? 0) + us)
}
const pct = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)}%`
console.log(`${file}: ${(total / 1e6).toFixed(2)} s sampled; top self time`)
for (const [name, us] of [...byFunction.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top)))
  console.log(`${pct(us)}  ${(us / 1000).toFixed(0).padStart(7)} ms  ${name}`)

const groups: [string, RegExp][] = [
  ['idle / waiting', /\(idle\)|\(program\)/],
  ['garbage collection', /\(garbage collector\)/],
  ['better-sqlite3 (statements, commit)', /better-sqlite3|^(run|all|get|exec) /],
  ['crypto (AES-GCM, hashes, JWT)', /crypto|fast-jwt|createHash|createHmac|Cipheriv|Decipheriv/],
  ['JSON', /JSON|stringify|parse /],
  ['fastify / find-my-way / avvio', /fastify|find-my-way|light-my-request/],
  ['kysely', /kysely/],
]
console.log('\ngroups (self time; a function counts in the first group it matches)')
const grouped = new Map<string, number>()
for (const [name, us] of byFunction) {
  const group = groups.find(([, re]) => re.test(name))?.[0] ?? 'other'
  grouped.set(group, (grouped.get(group) ?? 0) + us)
}
for (const [group, us] of [...grouped.entries()].sort((a, b) => b[1] - a[1]))
  console.log(`${pct(us)}  ${(us / 1000).toFixed(0).padStart(7)} ms  ${group}`)
