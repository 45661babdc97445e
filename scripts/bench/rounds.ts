// One scenario against every target of the run (issue #17): the same load function, the same
// options and the same number of rounds for the service, the bare stack and the peer, rounds
// interleaved with the order rotating so that noise from other users of the machine hits all.
// Any bench (lists, consultation log, SSE, scoped lists) measures through `runRounds`.
import { measureLoad, type LoadFigures, type LoadOptions, type LoadRequest } from './load.js'

export type TargetName = 'service' | 'bare' | 'platformatic'

export interface Target {
  readonly name: TargetName
  readonly port: number
  readonly token: string
  cpuSeconds(): number | undefined
}

/** A scenario: what each target is asked (a target it does not name sits it out). */
export interface Scenario {
  readonly name: string
  readonly title: string
  readonly authenticated: boolean
  readonly requests: Partial<Record<TargetName, LoadRequest>>
}

export type RoundFigures = Partial<Record<TargetName, LoadFigures>>

export async function runRounds(
  scenario: Scenario,
  targets: readonly Target[],
  rounds: number,
  load: Omit<LoadOptions, 'token'>,
  log: (line: string) => void,
): Promise<RoundFigures[]> {
  const taking = targets.filter((t) => scenario.requests[t.name] !== undefined)
  const runs: RoundFigures[] = []
  for (let round = 0; round < rounds; round++) {
    const figures: RoundFigures = {}
    for (let k = 0; k < taking.length; k++) {
      const target = taking[(round + k) % taking.length] as Target
      figures[target.name] = await measureLoad(
        target.port,
        () => target.cpuSeconds(),
        scenario.requests[target.name] as LoadRequest,
        { ...load, token: scenario.authenticated ? target.token : undefined },
      )
    }
    runs.push(figures)
    log(
      `${scenario.name} round ${round + 1}: ` +
        taking.map((t) => `${t.name} ${figures[t.name]?.rps.toFixed(0)} req/s`).join(', '),
    )
  }
  return runs
}

export const median = (xs: readonly number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number

/** Median over rounds of the per-round ratio `of` req/s / `to` req/s (NaN when `to` did not run). */
export function ratioOf(runs: readonly RoundFigures[], of: TargetName, to: TargetName): number {
  const ratios = runs.flatMap((r) => {
    const a = r[of]
    const b = r[to]
    return a === undefined || b === undefined || b.rps === 0 ? [] : [a.rps / b.rps]
  })
  return ratios.length === 0 ? Number.NaN : median(ratios)
}

/** Median over rounds of `to`'s CPU µs per request / `of`'s: the ratio, robust to machine load. */
export function cpuRatioOf(runs: readonly RoundFigures[], of: TargetName, to: TargetName): number {
  const ratios = runs.flatMap((r) => {
    const a = r[of]?.cpuUsPerRequest
    const b = r[to]?.cpuUsPerRequest
    return a === undefined || b === undefined || a === 0 ? [] : [b / a]
  })
  return ratios.length === 0 ? Number.NaN : median(ratios)
}
