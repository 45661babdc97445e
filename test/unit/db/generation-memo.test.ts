// The generation memo (src/db/generation-memo.ts) behind a list's total and its or-ed scope's
// branches: one load per id and generation, a new generation loads again, and an answer loaded
// under a generation that another lookup has since replaced is not kept.
import t from 'tap'
import { generationMemo } from '../../../src/db/generation-memo.js'

t.test('one load per id and generation; a new generation drops the older answers', async (t) => {
  const memo = generationMemo<string>()
  const loads: string[] = []
  const load = (answer: string) => async () => (loads.push(answer), answer)
  t.equal(await memo(1, 'a', load('a1')), 'a1')
  t.equal(await memo(1, 'a', load('again')), 'a1', 'same generation: remembered')
  t.equal(await memo(1, 'b', load('b1')), 'b1', 'another id: its own answer')
  t.equal(await memo(2, 'a', load('a2')), 'a2', 'a new generation: loaded again')
  t.equal(await memo(2, 'b', load('b2')), 'b2', "the older generation's answers are gone")
  t.same(loads, ['a1', 'b1', 'a2', 'b2'])
})

t.test('an answer loaded under a generation replaced meanwhile is not kept', async (t) => {
  const memo = generationMemo<string>()
  let release = () => {}
  const slow = memo(1, 'a', () => new Promise<string>((resolve) => (release = () => resolve('old'))))
  t.equal(await memo(2, 'a', async () => 'new'), 'new')
  release()
  t.equal(await slow, 'old', 'the slow lookup still answers its own caller')
  t.equal(await memo(2, 'a', async () => 'reloaded'), 'new', "generation 2's answer stays")
})
