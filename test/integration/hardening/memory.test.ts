// Memory stays flat across a long run of mixed requests (reads, writes, refusals,
// bad tokens). `npm test` sends 1,500; `HARDENING_REQUESTS=100000` the long run. The heap
// after a full GC may grow at most MAX_GROWTH_MB past its level after the warm-up.
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import t from 'tap'
import { startTestApi, VALID } from '../../helpers/api.js'

const REQUESTS = Number(process.env['HARDENING_REQUESTS'] ?? 1500)
const WARM_UP = 500
/**
 * Caches fill during the warm-up; what may still move is allocator noise and SQLite's page cache, outside the JS heap.
 */
const MAX_GROWTH_MB = 8

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

function settledHeapMb(): number {
  let least = Infinity
  for (let i = 0; i < 4; i += 1) {
    gc()
    least = Math.min(least, process.memoryUsage().heapUsed)
  }
  return least / 2 ** 20
}

t.test(`${REQUESTS} mixed requests leave the heap flat (growth < ${MAX_GROWTH_MB} MB)`, async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const { _id: id } = await api.create('denuncias', VALID['denuncias']!())
  const kinds = [
    () => api.request('GET', '/denuncias?limit=20&sort=-_created', { token }),
    () => api.request('GET', `/denuncias/${id}`, { token }),
    () =>
      api.request('POST', '/denuncias', {
        token,
        body: { ...VALID['denuncias']!(), denunciante_dni: `${Math.random()}` },
      }),
    () => api.request('PUT', `/denuncias/${id}`, { token, body: { observaciones: `${Math.random()}` } }),
    () => api.request('POST', '/denuncias', { token, body: { tipo: 5 } }),
    () => api.request('GET', `/denuncias?tipo=${Math.random()}&prioridad=alta`, { token }),
    () => api.request('GET', '/me', { token: `x${Math.random()}` }),
    () => api.request('GET', `/nada/${Math.random()}`, { token }),
  ]
  const statuses = new Set<number>()
  const send = async (n: number) => {
    for (let i = 0; i < n; i += 1) statuses.add((await kinds[i % kinds.length]!()).status)
  }
  await send(WARM_UP)
  await api.service.store.auditTrail({ limit: 1, offset: 0, filters: [] }) // touch every statement once more
  const before = settledHeapMb()
  await send(REQUESTS)
  const after = settledHeapMb()
  t.same([...statuses].sort(), [200, 201, 400, 401, 404], 'every kind of answer was exercised')
  t.ok(
    after - before < MAX_GROWTH_MB,
    `heap ${before.toFixed(1)} MB -> ${after.toFixed(1)} MB after ${REQUESTS} requests (growth ${(after - before).toFixed(2)} MB < ${MAX_GROWTH_MB} MB)`,
  )
})
