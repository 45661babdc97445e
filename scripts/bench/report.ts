// The benchmark's table (or JSON): per size, every scenario's figures for the service, the bare
// stack and the peer (Platformatic DB) as medians over rounds, the ratios service / bare and
// service / peer (medians of the per-round ratios), each target's durability settings as its
// own connections answer them (D45), the performance targets, startup, peak RSS, one list page's
// cost and growth across sizes; with --instances, the service with each instance count side by
// side and the lock waits of its S4 windows on PostgreSQL; the service's memory while an
// evidence file streams up and down (D43).
import type { DatabaseKind } from './database.js'
import { formatDurability, type Durability } from './durability.js'
import type { ListCost } from './list-cost.js'
import type { LoadFigures } from './load.js'
import { formatShares, topWaiting, type LockWaitTally } from './lock-waits.js'
import type { NpmStartFigures } from './npm-start.js'
import type { RoundFigures } from './rounds.js'
import { formatUploadMemory, type UploadMemoryFigures } from './upload-memory.js'

export interface ScenarioReport {
  readonly name: string
  readonly title: string
  readonly rounds: readonly RoundFigures[]
  /** service req/s / bare req/s, median over rounds. */
  readonly ratio: number
  /** bare CPU µs per request / service CPU µs per request, median over rounds. */
  readonly cpuRatio: number
  /** service req/s / Platformatic req/s (NaN without the peer or for a scenario it sits out). */
  readonly peerRatio: number
  readonly peerCpuRatio: number
  /**
   * The same-work stack's request (scripts/bench/same-work.ts), where it ran (S1, S2f): its req/s over the
   * peer's, and the service's req/s over its own; medians of the per-round ratios (NaN: not run).
   */
  readonly sameWork?: { readonly peerRatio: number; readonly ratio: number }
  /**
   * Per later --instances count: its req/s / the first count's, and its CPU µs per request
   * (summed over its instances) / the first count's.
   */
  readonly instanceRatios: readonly { readonly instances: number; readonly ratio: number; readonly cpuRatio: number }[]
}

/** One --instances count: the service as that many processes on the run's database. */
export interface GroupReport {
  readonly instances: number
  /** Its key in the rounds' figures: `service` for the first count, else `service×N`. */
  readonly target: string
  /** The sum of its instances' peak RSS, in MiB. */
  readonly peakRssMiB: number | undefined
  /** By scenario: what pg_stat_activity showed in its measured windows (PostgreSQL only). */
  readonly lockWaits: Readonly<Record<string, LockWaitTally>>
}

export interface PeerReport {
  readonly startupMs: number
  readonly peakRssMiB: number | undefined
  readonly seedSeconds: number
}

/** S6: a scoped agente's list page against superadmin's, on the same service. */
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
  /** Which database the service, the bare stack and the peer ran on (its label, with its version). */
  readonly database: string
  /** Its kind: the targets against the peer differ per kind. */
  readonly databaseKind: DatabaseKind
  readonly seedMode: string
  readonly seedSeconds: number
  /** `npm start` to healthy, median over runs. */
  readonly startupMs: number
  readonly startupRuns: readonly number[]
  readonly peakRssMiB: number | undefined
  /**
   * D45, by target (`service`, every instance alike; `bare`; `platformatic`): what its own
   * connections answered; undefined when it could not be read.
   */
  readonly durability: Readonly<Record<string, Durability | undefined>>
  /** The service per --instances count, the first being the `service` of the table. */
  readonly groups: readonly GroupReport[]
  /** Undefined when the peer could not be installed or started. */
  readonly peer: PeerReport | undefined
  /** Absent with --no-extras. */
  readonly listCost?: ListCost | undefined
  /** The evidence file up and down (D43); absent with --no-extras or --upload-mb 0. */
  readonly uploadMemory?: UploadMemoryFigures | undefined
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

/**
 * service / bare: S1 and S4 as the targets against the bare stack set them; the full-record lists S2, S3 as the
 * targets against the peer do (docs/performance.md).
 */
const TARGET_RATIO: Readonly<Record<string, number>> = { S1: 0.85, S2: 0.9, S3: 0.9, S4: 0.8 }
/** service / Platformatic DB, per database: on PostgreSQL the targets ask S1 and S4 at 0.8x, nothing of S2f. */
const TARGET_PEER_RATIO: Readonly<Record<DatabaseKind, Readonly<Record<string, number>>>> = {
  sqlite: { S1: 1.2, S2f: 1.0, S4: 1.0 },
  postgres: { S1: 0.8, S4: 0.8 },
}
const peerTargetsOf = (report: SizeReport) => TARGET_PEER_RATIO[report.databaseKind]
const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
const summary = (runs: readonly (LoadFigures | undefined)[]) => {
  const present = runs.filter((r): r is LoadFigures => r !== undefined)
  if (present.length === 0) return undefined
  return {
    rps: median(present.map((r) => r.rps)),
    p50: median(present.map((r) => r.p50)),
    p99: median(present.map((r) => r.p99)),
    errors: present.reduce((n, r) => n + r.errors, 0),
    cpuUs: median(present.map((r) => r.cpuUsPerRequest ?? Number.NaN)),
  }
}
const verdict = (ok: boolean) => (ok ? 'ok' : 'MISSED')
const pad = (text: string, width: number) => text.padStart(width)
const times = (x: number) => (Number.isNaN(x) ? '-' : `${x.toFixed(2)}x`)

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
        ratio: before === undefined || after === undefined || before.rps === 0 ? 0 : after.rps / before.rps,
        /** CPU per request at the first size / at the later one: the same comparison, robust to machine load. */
        cpuRatio: before === undefined || after === undefined ? Number.NaN : before.cpuUs / after.cpuUs,
      }
    }),
  )
}

function targetText(s: ScenarioReport, report: SizeReport): string {
  const parts: string[] = []
  const bare = TARGET_RATIO[s.name]
  if (bare !== undefined) parts.push(`bare >= ${bare.toFixed(2)}x ${verdict(s.ratio >= bare)}`)
  const peer = peerTargetsOf(report)[s.name]
  if (peer !== undefined && !Number.isNaN(s.peerRatio))
    parts.push(`peer >= ${peer.toFixed(2)}x ${verdict(s.peerRatio >= peer)}`)
  return parts.length === 0 ? '-' : parts.join(', ')
}

const instancesText = (n: number) => `${n} instance${n === 1 ? '' : 's'}`

/** The service per --instances count, side by side, and the lock waits sampled in its S4 windows. */
function printGroups(report: SizeReport, run: RunInfo): void {
  const groups = report.groups
  const first = groups[0]
  if (first === undefined) return
  if (groups.length > 1) {
    console.log(
      `\nservice instances on one database (autocannon's ${run.connections} connections round-robin over them; ` +
        'cpu µs per request summed over the instances; medians over rounds):',
    )
    for (const s of report.scenarios) {
      const cells = groups.map((g) => {
        const f = summary(s.rounds.map((r) => r[g.target]))
        return f === undefined
          ? `${instancesText(g.instances)}: -`
          : `${instancesText(g.instances)}: ${f.rps.toFixed(0)} req/s, p50/p99 ${f.p50}/${f.p99} ms, ${f.cpuUs.toFixed(0)} cpu µs, ${f.errors} err`
      })
      const ratios = s.instanceRatios.map(
        (r) => `${r.instances}/${first.instances}: ${times(r.ratio)} req/s, ${times(r.cpuRatio)} cpu per request`,
      )
      console.log(`  ${`${s.name} ${s.title}`.padEnd(26)} ${[...cells, ...ratios].join(' | ')}`)
    }
    console.log(
      `  peak RSS, sum of each instance's peak: ${groups.map((g) => `${instancesText(g.instances)} ${g.peakRssMiB === undefined ? 'n/a' : `${g.peakRssMiB.toFixed(0)} MiB`}`).join(', ')}`,
    )
  }
  const sampled = [...new Set(groups.flatMap((g) => Object.keys(g.lockWaits)))].sort()
  for (const scenario of sampled)
    console.log(
      `${scenario} lock waits (pg_stat_activity of the run's database every 10 ms during the measured windows, pooled over rounds):\n` +
        groups
          .flatMap((g) => {
            const tally = g.lockWaits[scenario]
            return tally === undefined
              ? []
              : [
                  `  ${instancesText(g.instances)}: ${formatShares(tally, run.connections)}`,
                  ...topWaiting(tally, 3).map(
                    (w) => `      ${(w.share * 100).toFixed(0).padStart(3)}% of the waits in: ${w.statement}`,
                  ),
                ]
          })
          .join('\n'),
    )
}

/** What the same-work stack reads for each scenario it serves (scripts/bench/bare-server.ts). */
const SAME_WORK: Readonly<Record<string, string>> = {
  S1: 'the bare GET',
  S2f: 'the page of the same fields with the metadata a record carries',
}

/**
 * The same-work stack beside the table: how far a hand-written stack gets against the peer when it
 * owes what the service owes on a read (the bound docs/performance.md sets beside S1's and S2f's targets).
 */
function printSameWork(report: SizeReport): void {
  for (const s of report.scenarios) {
    const same = summary(s.rounds.map((r) => r['same']))
    if (same === undefined || s.sameWork === undefined) continue
    const target = peerTargetsOf(report)[s.name]
    console.log(
      `same-work stack, ${s.name} (${SAME_WORK[s.name] ?? 'its request'} plus headers, rate limits, account and token checks, a chained consultation entry): ` +
        `${same.rps.toFixed(0)} req/s, ${same.cpuUs.toFixed(0)} cpu µs, p50/p99 ${same.p50}/${same.p99} ms, ${same.errors} err; ` +
        `/plt ${times(s.sameWork.peerRatio)}${target === undefined ? '' : ` (the service's target: ${target.toFixed(2)}x)`}; ` +
        `service / same-work ${times(s.sameWork.ratio)}`,
    )
  }
}

/** Each target's durability settings (D45), above the figures they were measured with. */
function printDurability(report: SizeReport): void {
  const rows: [string, string][] = [
    [report.groups.length > 1 ? 'service (every instance)' : 'service', 'service'],
    ['bare', 'bare'],
    ...(report.peer === undefined ? [] : ([['plt (Platformatic DB)', 'platformatic']] as [string, string][])),
  ]
  console.log("durability, as each target's own connections answer (each must run with the service's):")
  for (const [label, target] of rows) console.log(`  ${label.padEnd(26)}${formatDurability(report.durability[target])}`)
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
        peerRatio: s.peerRatio,
        peerCpuRatio: s.peerCpuRatio,
        service: summary(s.rounds.map((x) => x.service)),
        bare: summary(s.rounds.map((x) => x.bare)),
        platformatic: summary(s.rounds.map((x) => x.platformatic)),
        same: summary(s.rounds.map((x) => x['same'])),
        sameWork: s.sameWork,
        instances: r.groups.map((g) => ({ instances: g.instances, ...summary(s.rounds.map((x) => x[g.target])) })),
        instanceRatios: s.instanceRatios,
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
      `\n== ${report.records.toLocaleString('en')} denuncias on ${report.database} (seeded ${report.seedMode === 'api' ? 'through the API' : 'in bulk'} in ${report.seedSeconds.toFixed(1)} s)` +
        (report.peer === undefined ? '; no Platformatic DB in this run' : ''),
    )
    printDurability(report)
    console.log(
      `${'scenario'.padEnd(28)}${pad('req/s', 7)}${pad('p50', 5)}${pad('p99', 5)}${pad('err', 5)}${pad('cpu µs', 8)} |${pad('bare', 7)}${pad('cpu µs', 8)} |${pad('plt', 7)}${pad('cpu µs', 8)} |${pad('/bare', 7)}${pad('cpu', 7)}${pad('/plt', 7)}${pad('cpu', 7)}  targets (req/s ratio)`,
    )
    for (const s of report.scenarios) {
      const svc = summary(s.rounds.map((r) => r.service))
      const bare = summary(s.rounds.map((r) => r.bare))
      const plt = summary(s.rounds.map((r) => r.platformatic))
      const num = (x: number | undefined, w: number) => pad(x === undefined || Number.isNaN(x) ? '-' : x.toFixed(0), w)
      console.log(
        `${`${s.name} ${s.title}`.padEnd(28)}${num(svc?.rps, 7)}${num(svc?.p50, 5)}${num(svc?.p99, 5)}${num(svc?.errors, 5)}${num(svc?.cpuUs, 8)} |` +
          `${num(bare?.rps, 7)}${num(bare?.cpuUs, 8)} |${num(plt?.rps, 7)}${num(plt?.cpuUs, 8)} |` +
          `${pad(times(s.ratio), 7)}${pad(times(s.cpuRatio), 7)}${pad(times(s.peerRatio), 7)}${pad(times(s.peerCpuRatio), 7)}  ${targetText(s, report)}`,
      )
    }
    printSameWork(report)
    if (report.startupRuns.length > 0)
      console.log(
        `npm start to healthy /health: ${report.startupMs.toFixed(0)} ms, median of ${report.startupRuns.map((ms) => ms.toFixed(0)).join(', ')} (target <= 1000 ms: ${verdict(report.startupMs <= 1000)})`,
      )
    const firstCount = report.groups[0]?.instances ?? 1
    // The 200 MiB target is one process's: a sum over instances is reported, not judged.
    const rssTarget = (mib: number) =>
      firstCount > 1
        ? `, sum of ${firstCount} instances' peaks (the 200 MiB target is per instance)`
        : ` (target <= 200 MiB: ${verdict(mib <= 200)})`
    console.log(
      `peak RSS of the service:    ${report.peakRssMiB === undefined ? 'n/a' : `${report.peakRssMiB.toFixed(0)} MiB through the whole bench${rssTarget(report.peakRssMiB)}`}`,
    )
    printGroups(report, run)
    if (report.scoped !== undefined) {
      const sc = report.scoped
      const scopedFigures = summary(sc.rounds.map((r) => r.scoped))
      const unscopedFigures = summary(sc.rounds.map((r) => r.unscoped))
      if (scopedFigures !== undefined && unscopedFigures !== undefined)
        console.log(
          `S6 scoped list (limit=100; agente, ${sc.inScope.toLocaleString('en')} records in scope, vs superadmin): ` +
            `${scopedFigures.rps.toFixed(0)} vs ${unscopedFigures.rps.toFixed(0)} req/s, p50 ${scopedFigures.p50} vs ${unscopedFigures.p50} ms, ` +
            `cpu ${scopedFigures.cpuUs.toFixed(0)} vs ${unscopedFigures.cpuUs.toFixed(0)} µs; cost ${sc.costRatio.toFixed(2)}x req/s, ` +
            `${sc.cpuRatio.toFixed(2)}x cpu (target <= 1.10x: ${verdict(sc.costRatio <= 1.1)})`,
        )
    }
    if (report.peer !== undefined)
      console.log(
        `Platformatic DB: started in ${report.peer.startupMs.toFixed(0)} ms (node, no npm), peak RSS ${report.peer.peakRssMiB?.toFixed(0) ?? 'n/a'} MiB, seeded in ${report.peer.seedSeconds.toFixed(1)} s`,
      )
    const c = report.listCost
    if (c !== undefined)
      console.log(
        `one list page (100 records, in process through Kysely): query ${c.queryUs.toFixed(0)} µs, count ${c.countUs.toFixed(0)} µs, decrypt+decode ${c.decryptUs.toFixed(0)} µs, serialize ${c.serializeUs.toFixed(0)} µs`,
      )
    if (report.uploadMemory !== undefined) console.log(formatUploadMemory(report.uploadMemory))
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
