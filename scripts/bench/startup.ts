// `npm start` to the first healthy answer: the command a user runs, its prestart
// included, on the bench's seeded database, stopped after each run; the median of `rounds`.
import { startChild } from './processes.js'

export async function measureStartup(
  root: string,
  env: Record<string, string>,
  rounds: number,
  log: (line: string) => void,
): Promise<{ medianMs: number; runsMs: number[] }> {
  const runsMs: number[] = []
  for (let i = 0; i < rounds; i++) {
    const child = await startChild('npm start', env, '/api/health', [], {
      command: ['npm', 'start', '--silent'],
      cwd: root,
    })
    runsMs.push(child.startupMs)
    await child.stop()
  }
  const medianMs = [...runsMs].sort((a, b) => a - b)[Math.floor(runsMs.length / 2)] ?? Number.NaN
  if (runsMs.length > 0) log(`npm start to healthy: ${runsMs.map((ms) => ms.toFixed(0)).join(', ')} ms`)
  return { medianMs, runsMs }
}
