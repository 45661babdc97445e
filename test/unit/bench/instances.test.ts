// --instances names the instance counts the bench runs the service with; a
// group's CPU time and peak RSS are the sums over its instances.
import t from 'tap'
import { groupOf, parseInstances } from '../../../scripts/bench/instances.js'
import type { Child } from '../../../scripts/bench/processes.js'

t.test('--instances takes counts separated by commas', async (t) => {
  t.same(parseInstances('1', 'sqlite'), [1])
  t.same(parseInstances('3', 'postgres'), [3])
  t.same(parseInstances('1,3', 'postgres'), [1, 3], "the first count is the table's service")
  t.same(parseInstances(' 3 , 1 ', 'postgres'), [3, 1], 'spaces ignored, order kept')
  for (const bad of ['', '0', '-1', '1.5', 'tres', '1,,3', '01'])
    t.throws(() => parseInstances(bad, 'postgres'), /--instances takes instance counts/, JSON.stringify(bad))
  t.throws(() => parseInstances('3,3', 'postgres'), /names a count twice/)
})

t.test('SQLite refuses more than one instance, with the reason', async (t) => {
  t.throws(() => parseInstances('3', 'sqlite'), /--instances above 1 needs --database postgres: .*one writer/)
  t.throws(() => parseInstances('1,3', 'sqlite'), /needs --database postgres/)
})

const fakeChild = (port: number, cpu: number | undefined, rss: number | undefined, stopped: number[]): Child =>
  ({
    port,
    startupMs: 0,
    cpuSeconds: () => cpu,
    peakRssMiB: () => rss,
    stop: async () => void stopped.push(port),
  }) as unknown as Child

t.test('a group sums CPU and peak RSS over its instances and stops them all', async (t) => {
  const stopped: number[] = []
  const group = groupOf([
    fakeChild(4001, 1.5, 100, stopped),
    fakeChild(4002, 2.25, 90, stopped),
    fakeChild(4003, 0.25, 95, stopped),
  ])
  t.equal(group.instances, 3)
  t.same(group.ports, [4001, 4002, 4003])
  t.equal(group.port, 4001, 'logins go to the first instance')
  t.equal(group.cpuSeconds(), 4)
  t.equal(group.peakRssMiB(), 285)
  await group.stop()
  t.same(stopped.sort(), [4001, 4002, 4003])
})

t.test('an unknown figure of one instance leaves the sum unknown, not short', async (t) => {
  const group = groupOf([fakeChild(1, 1, 100, []), fakeChild(2, undefined, undefined, [])])
  t.equal(group.cpuSeconds(), undefined)
  t.equal(group.peakRssMiB(), undefined)
  t.throws(() => groupOf([]), /at least one instance/)
})
