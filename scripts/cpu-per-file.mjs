// The CPU each test file costs, its own process and the node processes it starts: a preload for
// NODE_OPTIONS (docs/development.md, the measurement paragraph). CPU seconds compare where wall
// times do not, on a machine other suites share.
//
//   rm -f /tmp/cpu.log
//   CPU_LOG=/tmp/cpu.log NODE_OPTIONS=--import=$PWD/scripts/cpu-per-file.mjs \
//     node scripts/tap.mjs --disable-coverage <files>
//   node scripts/cpu-per-file.mjs /tmp/cpu.log
//
// Each process appends one line at exit: the test file (a child inherits it through the
// environment), whether it is that file's own process, and its CPU (user and system, every
// thread). Run as a script, it sums the lines per file, most expensive first.
import { appendFileSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const self = process.argv[1] ?? ''

if (self === fileURLToPath(import.meta.url)) {
  const byFile = new Map()
  for (const line of readFileSync(process.argv[2] ?? '/tmp/cpu.log', 'utf8')
    .trim()
    .split('\n')) {
    const { file, own, cpu } = JSON.parse(line)
    const entry = byFile.get(file) ?? { own: 0, children: 0, count: 0 }
    if (own) entry.own += cpu
    else {
      entry.children += cpu
      entry.count += 1
    }
    byFile.set(file, entry)
  }
  const rows = [...byFile].sort(([, a], [, b]) => b.own + b.children - (a.own + a.children))
  const total = rows.reduce((sum, [, e]) => sum + e.own + e.children, 0)
  console.log(`${rows.length} files, ${total.toFixed(0)} s of CPU`)
  for (const [file, e] of rows)
    console.log(
      `${(e.own + e.children).toFixed(1).padStart(7)} s  own ${e.own.toFixed(1).padStart(6)}  children ${e.children.toFixed(1).padStart(6)} (${e.count})  ${file}`,
    )
} else {
  if (/\.test\.ts$/.test(self) && process.env.CPU_TEST_FILE === undefined) process.env.CPU_TEST_FILE = self
  process.on('exit', () => {
    const usage = process.resourceUsage()
    const file = process.env.CPU_TEST_FILE ?? ''
    const cpu = (usage.userCPUTime + usage.systemCPUTime) / 1e6
    try {
      appendFileSync(process.env.CPU_LOG ?? '/tmp/cpu.log', `${JSON.stringify({ file, own: self === file, cpu })}\n`)
    } catch {
      // A process that cannot write the log is left out of it.
    }
  })
}
