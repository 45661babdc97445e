// One scenario against every target of the run: the same load function, the same
// options and the same number of rounds for the service, the bare stack and the peer, rounds
// interleaved with the order rotating so that noise from other users of the machine hits all.
// Any bench (lists, consultation log, SSE, scoped lists) measures through `runRounds`. With
// --instances 1,3 the service is two targets, `service` (the first count) and `service×3`, both
// sending the service's requests.
import { measureLoad, type LoadFigures, type LoadOptions, type LoadRequest, type LoadWindow } from './load.js'

/** `same`: the bare stack's same-work routes (scripts/bench/same-work.ts), in the bare stack's process. */
export type TargetName = 'service' | 'bare' | 'same' | 'platformatic'

export interface Target {
  /** What the report calls it: a TargetName, or `service×N` for a group of N instances. */
  readonly name: string
  /** Whose requests it is sent (default: its name). */
  readonly sends?: TargetName
  /** One port, or one per instance: the load is spread over them. */
  readonly ports: readonly number[]
  readonly token: string
  cpuSeconds(): number | undefined
}

/** The name of the target that is a group of `instances` service processes. */
export const serviceTargetName = (instances: number, first: boolean): string =>
  first ? 'service' : `service×${instances}`

/** A scenario: what each target is asked (a target it does not name sits it out). */
export interface Scenario {
  readonly name: string
  readonly title: string
  readonly authenticated: boolean
  readonly requests: Partial<Record<TargetName, LoadRequest>>
}

export type RoundFigures = Partial<Record<string, LoadFigures>>

/** Something to do around a target's measured window in a scenario (undefined: nothing). */
export type WindowFor = (scenario: Scenario, target: Target) => LoadWindow | undefined

const sendsOf = (target: Target): TargetName => target.sends ?? (target.name as TargetName)

export async function runRounds(
  scenario: Scenario,
  targets: readonly Target[],
  rounds: number,
  load: Omit<LoadOptions, 'token'>,
  log: (line: string) => void,
  windowFor?: WindowFor,
): Promise<RoundFigures[]> {
  const taking = targets.filter((t) => scenario.requests[sendsOf(t)] !== undefined)
  const runs: RoundFigures[] = []
  for (let round = 0; round < rounds; round++) {
    const figures: RoundFigures = {}
    for (let k = 0; k < taking.length; k++) {
      const target = taking[(round + k) % taking.length] as Target
      figures[target.name] = await measureLoad(
        target.ports,
        () => target.cpuSeconds(),
        scenario.requests[sendsOf(target)] as LoadRequest,
        { ...load, token: scenario.authenticated ? target.token : undefined },
        windowFor?.(scenario, target),
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
export function ratioOf(runs: readonly RoundFigures[], of: string, to: string): number {
  const ratios = runs.flatMap((r) => {
    const a = r[of]
    const b = r[to]
    return a === undefined || b === undefined || b.rps === 0 ? [] : [a.rps / b.rps]
  })
  return ratios.length === 0 ? Number.NaN : median(ratios)
}

/** Median over rounds of `to`'s CPU µs per request / `of`'s: the ratio, robust to machine load. */
export function cpuRatioOf(runs: readonly RoundFigures[], of: string, to: string): number {
  const ratios = runs.flatMap((r) => {
    const a = r[of]?.cpuUsPerRequest
    const b = r[to]?.cpuUsPerRequest
    return a === undefined || b === undefined || a === 0 ? [] : [b / a]
  })
  return ratios.length === 0 ? Number.NaN : median(ratios)
}
