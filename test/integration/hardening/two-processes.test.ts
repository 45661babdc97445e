// Two server processes on one SQLite file (WAL, busy timeout, BEGIN IMMEDIATE)
// under concurrent writes. Clients see only success, 409 (D13) or 503 with retry-after
// (README "Concurrency"); ids stay unique (D8) and If-Match loses no update (D13).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { verifyIntegrity } from '../../../src/db/operations/verify-integrity.js'
import { startTestApi, VALID } from '../../helpers/api.js'
import { call, startServer, type Answer } from './server-process.js'
import { runs } from './support.js'

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Sends until the answer is not a 503; a 503 must carry retry-after (the documented contract). */
async function untilServed(t: Test, send: () => Promise<Answer>, busy: { count: number }): Promise<Answer> {
  for (;;) {
    const reply = await send()
    if (reply.status !== 503) return reply
    busy.count += 1
    const retryAfter = reply.headers.get('retry-after')
    if (retryAfter === null || !/^\d+$/.test(retryAfter))
      t.fail(`a 503 without retry-after: ${JSON.stringify(reply.body)}`)
    await pause(50 + Math.random() * 100)
  }
}

t.test('two processes, one SQLite file: concurrent creates and If-Match increments', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-two-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const first = await startServer(t, dataDir)
  const second = await startServer(t, dataDir)
  const servers = [first, second]
  const tokens = [await first.login(), await second.login()]
  const busy = { count: 0 }
  const unexpected: string[] = []

  // Creates: 8 clients, alternating servers.
  const perClient = runs(12)
  const ids: string[] = []
  await Promise.all(
    Array.from({ length: 8 }, async (_, c) => {
      for (let i = 0; i < perClient; i += 1) {
        const s = (c + i) % 2
        const reply = await untilServed(
          t,
          () =>
            call(servers[s]!.base, 'POST', '/denuncias', tokens[s]!, {
              ...VALID['denuncias']!(),
              descripcion: `c${c}i${i}`,
            }),
          busy,
        )
        if (reply.status === 201) ids.push(reply.body.data._id)
        else unexpected.push(`create ${reply.status} ${JSON.stringify(reply.body)}`)
      }
    }),
  )
  t.same(unexpected, [], 'every create succeeded (after retry-after on 503)')
  t.equal(ids.length, 8 * perClient)
  t.equal(new Set(ids).size, ids.length, 'ids are unique across both processes (D8)')

  // Lost updates: each client reads, adds one to km_actuales and writes back under If-Match.
  const vehicle = await call(first.base, 'POST', '/vehiculos', tokens[0]!, { ...VALID['vehiculos']!(), km_actuales: 0 })
  const path = `/vehiculos/${vehicle.body.data._id}`
  const increments = runs(5)
  let conflicts = 0
  await Promise.all(
    Array.from({ length: 6 }, async (_, c) => {
      const s = c % 2
      for (let done = 0; done < increments;) {
        const read = await untilServed(t, () => call(servers[s]!.base, 'GET', path, tokens[s]!), busy)
        const write = await untilServed(
          t,
          () =>
            call(
              servers[s]!.base,
              'PUT',
              path,
              tokens[s]!,
              { km_actuales: read.body.data.km_actuales + 1 },
              { 'if-match': read.headers.get('etag') ?? '' },
            ),
          busy,
        )
        if (write.status === 200) done += 1
        else if (write.status === 409 && write.body.error === 'Conflicto de versión') conflicts += 1
        else unexpected.push(`update ${write.status} ${JSON.stringify(write.body)}`)
      }
    }),
  )
  t.same(unexpected, [], 'updates answered 200 or 409 Conflicto de versión only')
  const final = await call(second.base, 'GET', path, tokens[1]!)
  t.equal(
    final.body.data.km_actuales,
    6 * increments,
    `no increment lost (${conflicts} conflicts retried, ${busy.count} busy answers retried)`,
  )
  t.equal(final.body.data._version, 6 * increments + 1)

  for (const server of servers) server.child.kill('SIGTERM')
  t.same(await Promise.all(servers.map((s) => s.exited)), [0, 0], 'both stop cleanly')
  const api = await startTestApi(t, { dataDir })
  t.same(
    (await verifyIntegrity(api.service.database, api.service.spec, api.service.codec)).problems,
    [],
    'the audit chain interleaved from two processes verifies',
  )
})
