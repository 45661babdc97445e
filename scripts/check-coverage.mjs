// tap 21 has no numeric coverage threshold: it is 100% or allow-incomplete-coverage.
// This is the honest gate instead: the thresholds below, against tap's json-summary.
import { readFileSync } from 'node:fs'

const THRESHOLDS = { lines: 95, statements: 95, functions: 90, branches: 85 }
const summary = JSON.parse(readFileSync(new URL('../.tap/report/coverage-summary.json', import.meta.url), 'utf8')).total
const failures = Object.entries(THRESHOLDS).filter(([kind, min]) => summary[kind].pct < min)
for (const [kind, min] of Object.entries(THRESHOLDS))
  console.log(`coverage ${kind}: ${summary[kind].pct}% (minimum ${min}%)`)
if (failures.length > 0) {
  console.error(`coverage below the threshold: ${failures.map(([k]) => k).join(', ')}`)
  process.exit(1)
}
