// The benchmark's table (or JSON): per size, every scenario's service and bare figures
// (medians over rounds), the service/bare ratio (median of the per-round ratios), the
// targets of issue #7, startup, peak RSS, one list page's cost and growth across sizes.
import type { ListCost } from './list-cost.js'
import type { LoadFigures } from './load.js'
import type { NpmStartFigures } from './npm-start.js'

export interface ScenarioReport {
  readonly name: string
  readonly title: string
  readonly rounds: readonly { readonly service: LoadFigures; readonly bare: LoadFigures }[]
  readonly ratio: number
  /** bare CPU µs per request / service CPU µs per request, median over rounds. */
  readonly cpuRatio: number
}

/** S6 (issue #14): a scoped agente's list page against superadmin's, on the same service. */
export interface ScopedReport {
  /** How many of the seeded denuncias the agente's scope holds. */
  readonly inScope: number
  readonly rounds: readonly { readonly scoped: LoadFigures; readonly unscoped: LoadFigures }[]
  /** unscoped req/s / scoped req/s, median over rounds: what the scope costs (target <= 1.1x). */
  readonly costRatio: number
  /** scoped CPU µs per request / unscoped, median over rounds. */
  readonly cpuRatio: number
}

export interface SizeReport {
  readonly records: number
  /** Which database both the service and the bare stack ran on. */
  readonly database: string
  readonly seedSeconds: number
  readonly startupMs: number
  readonly peakRssMiB: number | undefined
  readonly listCost: ListCost
  readonly scenarios: readonly ScenarioReport[]
  readonly scoped?: ScopedReport
}

export interface RunInfo {
  readonly json: boolean
  readonly rounds: number
  readonly connections: number
  readonly durationSeconds: number
  readonly warmupSeconds: number
}

const TARGET_RATIO: Readonly<Record<string, number>> = { S1: 0.85, S2: 1.0, S3: 1.0, S4: 0.8 }
const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
const summary = (runs: readonly LoadFigures[]) => ({
  rps: median(runs.map((r) => r.rps)),
  p50: median(runs.map((r) => r.p50)),
  p99: median(runs.map((r) => r.p99)),
  errors: runs.reduce((n, r) => n + r.errors, 0),
  cpuUs: median(runs.map((r) => r.cpuUsPerRequest ?? Number.NaN)),
})
const verdict = (ok: boolean) => (ok ? 'ok' : 'MISSED')
const pad = (text: string, width: number) => text.padStart(width)

function growth(reports: readonly SizeReport[]) {
  const first = reports[0]
  if (first === undefined || reports.length < 2) return []
  return reports.slice(1).flatMap((later) =>
    later.scenarios.map((s) => {
      const base = first.scenarios.find((f) => f.name === s.name)
      const before = base === undefined ? undefined : summary(base.rounds.map((r) => r.service))
      const after = summary(s.rounds.map((r) => r.service))
      return {
        scenario: s.name,
        from: first.records,
        to: later.records,
        ratio: before === undefined || before.rps === 0 ? 0 : after.rps / before.rps,
        /** CPU per request at the first size / at the later one: the same comparison, robust to machine load. */
        cpuRatio: before === undefined ? Number.NaN : before.cpuUs / after.cpuUs,
      }
    }),
  )
}

export function printReport(reports: readonly SizeReport[], run: RunInfo, npmStart?: NpmStartFigures): void {
  if (run.json) {
    const out = reports.map((r) => ({
      ...r,
      scenarios: r.scenarios.map((s) => ({
        name: s.name,
        title: s.title,
        ratio: s.ratio,
        cpuRatio: s.cpuRatio,
        service: summary(s.rounds.map((x) => x.service)),
        bare: summary(s.rounds.map((x) => x.bare)),
        rounds: s.rounds,
      })),
    }))
    console.log(JSON.stringify({ run, sizes: out, growth: growth(reports), npmStart }, null, 2))
    return
  }
  console.log(
    `\nnpm run bench: ${run.connections} connections, ${run.warmupSeconds} s warm-up + ${run.durationSeconds} s per scenario and target, ${run.rounds} rounds interleaved; medians`,
  )
  for (const report of reports) {
    console.log(
      `\n== ${report.records.toLocaleString('en')} denuncias on ${report.database} (seeded in ${report.seedSeconds.toFixed(1)} s)`,
    )
    console.log(
      `${'scenario'.padEnd(30)}${pad('req/s', 9)}${pad('p50 ms', 8)}${pad('p99 ms', 8)}${pad('errors', 8)}${pad('cpu µs', 8)} |${pad('bare req/s', 11)}${pad('p50', 6)}${pad('p99', 6)}${pad('cpu µs', 8)} |${pad('ratio', 7)}${pad('cpu', 7)}  target (req/s ratio)`,
    )
    for (const s of report.scenarios) {
      const svc = summary(s.rounds.map((r) => r.service))
      const bare = summary(s.rounds.map((r) => r.bare))
      const target = TARGET_RATIO[s.name]
      console.log(
        `${`${s.name} ${s.title}`.padEnd(30)}${pad(svc.rps.toFixed(0), 9)}${pad(String(svc.p50), 8)}${pad(String(svc.p99), 8)}${pad(String(svc.errors), 8)}${pad(svc.cpuUs.toFixed(0), 8)} |` +
          `${pad(bare.rps.toFixed(0), 11)}${pad(String(bare.p50), 6)}${pad(String(bare.p99), 6)}${pad(bare.cpuUs.toFixed(0), 8)} |${pad(`${s.ratio.toFixed(2)}x`, 7)}${pad(`${s.cpuRatio.toFixed(2)}x`, 7)}  ` +
          (target === undefined ? '-' : `>= ${target.toFixed(2)}x ${verdict(s.ratio >= target)}`),
      )
    }
    console.log(
      `startup to healthy /health: ${report.startupMs.toFixed(0)} ms (target <= 1000 ms: ${verdict(report.startupMs <= 1000)})`,
    )
    console.log(
      `peak RSS of the service:    ${report.peakRssMiB === undefined ? 'n/a' : `${report.peakRssMiB.toFixed(0)} MiB (target <= 200 MiB: ${verdict(report.peakRssMiB <= 200)})`}`,
    )
    if (report.scoped !== undefined) {
      const sc = report.scoped
      const scopedFigures = summary(sc.rounds.map((r) => r.scoped))
      const unscopedFigures = summary(sc.rounds.map((r) => r.unscoped))
      console.log(
        `S6 scoped list (limit=100; agente, ${sc.inScope.toLocaleString('en')} records in scope, vs superadmin): ` +
          `${scopedFigures.rps.toFixed(0)} vs ${unscopedFigures.rps.toFixed(0)} req/s, p50 ${scopedFigures.p50} vs ${unscopedFigures.p50} ms, ` +
          `cpu ${scopedFigures.cpuUs.toFixed(0)} vs ${unscopedFigures.cpuUs.toFixed(0)} µs; cost ${sc.costRatio.toFixed(2)}x req/s, ` +
          `${sc.cpuRatio.toFixed(2)}x cpu (target <= 1.10x: ${verdict(sc.costRatio <= 1.1)})`,
      )
    }
    const c = report.listCost
    console.log(
      `one list page (100 records, in process through Kysely): query ${c.queryUs.toFixed(0)} µs, count ${c.countUs.toFixed(0)} µs, decrypt+decode ${c.decryptUs.toFixed(0)} µs, serialize ${c.serializeUs.toFixed(0)} µs`,
    )
  }
  const grown = growth(reports)
  if (grown.length > 0) {
    console.log(
      '\ngrowth (service at the larger size / at the first size, req/s and inverse CPU per request; S1, S3 target >= 0.70x):',
    )
    for (const g of grown)
      console.log(
        `  ${g.scenario} ${g.from.toLocaleString('en')} -> ${g.to.toLocaleString('en')}: ${g.ratio.toFixed(2)}x req/s, ${g.cpuRatio.toFixed(2)}x cpu` +
          (g.scenario === 'S1' || g.scenario === 'S3' ? ` ${verdict(g.ratio >= 0.7)}` : ''),
      )
  }
  if (npmStart !== undefined) {
    const line = (label: string, ms: readonly number[]) =>
      `  ${label}: median ${median(ms).toFixed(0)} ms (${ms.map((m) => m.toFixed(0)).join(', ')}; target <= 1000 ms: ${verdict(median(ms) <= 1000)})`
    console.log('\nstart to healthy (`npm start` to the first 200 of /api/health, polled every 20 ms):')
    console.log(line('fresh data directory', npmStart.freshMs))
    console.log(line('initialised data directory', npmStart.initialisedMs))
  }
}
