// The sharing behind the seal of D38 and the generation reads of D20: a call is answered by a
// run that started after it, never by one already under way (it could miss the caller's own
// commit), one run at a time, and a failure reaches exactly the calls its run answers.
import fc from 'fast-check'
import t from 'tap'
import { coalesced } from '../../../src/db/coalesce.js'

const settle = () => new Promise((resolve) => setImmediate(resolve))

interface Run {
  readonly ordinal: number
  readonly resolve: (value: number) => void
  readonly reject: (error: Error) => void
}

t.test('every call is answered by a run begun after it; one run at a time; failures reach their callers', async (t) => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.constantFrom('call', 'ok', 'fail'), { maxLength: 40 }), async (steps) => {
      let started = 0
      let inFlight = 0
      let current: Run | undefined
      const work = () =>
        new Promise<number>((resolve, reject) => {
          inFlight += 1
          if (inFlight > 1) throw new Error('two runs in flight')
          started += 1
          current = { ordinal: started, resolve, reject }
        }).finally(() => void (inFlight -= 1))
      const run = coalesced(work)
      const answers: { readonly startedBefore: number; answer?: number; failed?: number }[] = []
      const finish = async (ok: boolean) => {
        const open = current
        if (open === undefined) return
        current = undefined
        if (ok) open.resolve(open.ordinal)
        else open.reject(new Error(String(open.ordinal)))
        await settle()
      }
      for (const step of steps) {
        if (step === 'call') {
          const answer: (typeof answers)[number] = { startedBefore: started }
          answers.push(answer)
          run().then(
            (ordinal) => void (answer.answer = ordinal),
            (error: Error) => void (answer.failed = Number(error.message)),
          )
          await settle()
        } else await finish(step === 'ok')
      }
      while (current !== undefined) await finish(true)
      await settle()
      for (const a of answers) {
        const by = a.answer ?? a.failed
        if (by === undefined) throw new Error('a call was never answered')
        if (by <= a.startedBefore)
          throw new Error(`answered by run ${by}, begun before the call (${a.startedBefore} begun)`)
      }
      if (started > answers.length) throw new Error('a run began that no call asked for')
    }),
  )
  t.pass('held for every sequence of calls and outcomes')
})

t.test('calls while a run is under way share the next run', async (t) => {
  const resolvers: ((n: number) => void)[] = []
  const run = coalesced(() => new Promise<number>((resolve) => resolvers.push(resolve)))
  const first = run()
  const [second, third] = [run(), run()]
  t.equal(second, third, 'one promise for both')
  t.equal(resolvers.length, 1, 'the next run waits for the first to end')
  resolvers[0]!(1)
  t.equal(await first, 1)
  await settle()
  t.equal(resolvers.length, 2, 'then it starts')
  resolvers[1]!(2)
  t.same(await Promise.all([second, third]), [2, 2])
})
