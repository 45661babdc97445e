// Caches of account state, revocations and list totals stay exact when several processes
// share one database (D20): two services on one SQLite file, each on its own
// connection, see each other's logouts, account changes and writes on the next request.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { startTestApi, VALID, type TestApi } from '../../helpers/api.js'
import { assertError } from './envelope.js'

const INVALID = 'Token inválido o expirado'

async function twoServices(t: Test): Promise<[TestApi, TestApi]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-shared-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const a = await startTestApi(t, { dataDir })
  const b = await startTestApi(t, { dataDir })
  return [a, b]
}

t.test('D20: a logout in one process is refused by the other at once, after it cached the token', async (t) => {
  const [a, b] = await twoServices(t)
  const token = await a.login()
  t.equal((await b.request('GET', '/me', { token })).status, 200, 'b accepts the token (and caches the answer)')
  t.equal((await b.request('GET', '/me', { token })).status, 200, 'again, from the cache')
  t.equal((await a.request('POST', '/auth/logout', { token })).status, 200)
  assertError(t, await b.request('GET', '/me', { token }), 401, INVALID, 'b refuses the revoked token')
  assertError(t, await a.request('GET', '/me', { token }), 401, INVALID, 'a refuses it too')
})

t.test('D20: disabling or deleting an account in one process takes effect in the other at once', async (t) => {
  const [a, b] = await twoServices(t)
  const admin = await a.adminToken()
  const user = await a.userWithRole('consulta')
  t.equal((await b.request('GET', '/denuncias', { token: user.token })).status, 200, 'b serves the user')
  t.equal((await a.request('PUT', `/usuarios/${user.id}`, { token: admin, body: { activo: false } })).status, 200)
  assertError(t, await b.request('GET', '/denuncias', { token: user.token }), 401, INVALID, 'disabled in a: b refuses')
  t.equal((await b.request('PUT', `/usuarios/${user.id}`, { token: admin, body: { activo: true } })).status, 200)
  assertError(
    t,
    await a.request('GET', '/denuncias', { token: user.token }),
    401,
    INVALID,
    'enabled again in b, a still refuses the token issued before the disable',
  )
  const fresh = await a.login(user.username, user.password)
  t.equal((await a.request('GET', '/denuncias', { token: fresh })).status, 200, 'a new login after re-enabling serves')
  t.equal((await b.request('DELETE', `/usuarios/${user.id}`, { token: admin })).status, 200)
  assertError(t, await a.request('GET', '/denuncias', { token: fresh }), 401, INVALID, 'deleted in b: a refuses')
})

t.test('API reference 4.4: list totals stay exact across processes and filters while they are cached', async (t) => {
  const [a, b] = await twoServices(t)
  const token = await a.adminToken()
  const total = async (api: TestApi, query = '') =>
    (await api.request('GET', `/denuncias?limit=1${query}`, { token })).body.data.total as number
  t.equal(await total(b), 0)
  await a.create('denuncias', { ...VALID['denuncias']!(), prioridad: 'alta' })
  t.equal(await total(b), 1, 'b counts a record created by a')
  t.equal(await total(b, '&prioridad=alta'), 1)
  t.equal(await total(b, '&prioridad=baja'), 0)
  const created = await b.create('denuncias', { ...VALID['denuncias']!(), prioridad: 'baja' })
  t.equal(await total(b, '&prioridad=baja'), 1, 'b counts its own write')
  t.equal(await total(a, '&prioridad=baja'), 1, "a counts b's write")
  t.equal((await a.request('DELETE', `/denuncias/${created._id}`, { token })).status, 200)
  t.equal(await total(b), 1, 'a delete in a is counted in b')
  t.equal(await total(b, '&prioridad=baja'), 0)
  t.equal(await total(a), 1)
})
