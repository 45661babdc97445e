// Behind a proxy only the configured proxies are trusted, and the address
// counted (D24, login protection) is the one the nearest trusted proxy saw: what a client
// writes at the left of X-Forwarded-For never gives it a fresh budget.
import t from 'tap'
import { startTestApi, type TestApi } from '../../helpers/api.js'
import { loadSettings } from '../../../src/app/settings.js'
import { assertError } from '../auth/envelope.js'

/** A clock that stands still: the 70 requests fall in one rate-limit window. */
const clock = () => new Date('2026-11-23T10:00:30.000Z')

const login = (api: TestApi, i: number, forwardedFor: string) =>
  api.request('POST', '/auth/login', {
    body: { username: `nadie-${i}`, password: 'x' },
    headers: { 'x-forwarded-for': forwardedFor },
  })

/** 70 logins, each claiming another client address at the left of X-Forwarded-For. */
async function seventyLogins(api: TestApi, nearest: string): Promise<number[]> {
  const statuses: number[] = []
  for (let i = 1; i <= 70; i++) statuses.push((await login(api, i, `203.0.113.${i}, ${nearest}`)).status)
  return statuses
}

for (const trust of ['1', 'true']) {
  const name = `D24: TRUST_PROXY=${trust}: 70 logins, X-Forwarded-For 203.0.113.<i>, 127.0.0.1: ` + '429 after 50'
  t.test(name, async (t) => {
    const api = await startTestApi(t, { clock, env: { TRUST_PROXY: trust, RATE_LIMIT_IP_PER_MINUTE: '50' } })
    const statuses = await seventyLogins(api, '127.0.0.1')
    t.same(
      statuses.slice(0, 50).filter((s) => s !== 401),
      [],
      'the first 50 are answered (401: no such user)',
    )
    t.same(statuses.slice(50), Array(20).fill(429), 'the rest are 429: one proxy hop, one client address counted')
    const last = await login(api, 71, '203.0.113.71, 127.0.0.1')
    assertError(t, last, 429, 'Demasiadas solicitudes')
    t.equal(last.headers['x-ratelimit-limit'], '50', 'the per-address limit of D24')
    t.ok(Number(last.headers['retry-after']) >= 1, 'with retry-after')
  })
}

t.test('TRUST_PROXY as a list trusts those proxies only, CIDRs included', async (t) => {
  const env = { TRUST_PROXY: '127.0.0.1,10.0.0.0/8', RATE_LIMIT_IP_PER_MINUTE: '50' }
  const api = await startTestApi(t, { clock, env })
  // The inner hop 198.51.100.1 is not a trusted proxy: it is the client, whatever it forwarded.
  const statuses = await seventyLogins(api, '198.51.100.1')
  t.same(statuses.slice(50), Array(20).fill(429), 'an untrusted hop is the client address')
  // Through two trusted proxies (127.0.0.1 and 10.1.2.3), the address 10.1.2.3 saw is the client.
  const through = await login(api, 1, '192.0.2.44, 10.1.2.3')
  t.equal(through.status, 401, 'a client behind both trusted proxies has its own budget')
  t.equal(through.headers['x-ratelimit-remaining'], '49')
})

t.test('without TRUST_PROXY, X-Forwarded-For is ignored', async (t) => {
  const api = await startTestApi(t, { clock, env: { RATE_LIMIT_IP_PER_MINUTE: '50' } })
  const statuses = await seventyLogins(api, '127.0.0.1')
  t.same(statuses.slice(50), Array(20).fill(429), 'every request is the socket address')
})

t.test('TRUST_PROXY is checked at start', async (t) => {
  const env = { DATA_DIR: t.testdir() }
  const trustOf = (value: string | undefined) =>
    loadSettings(value === undefined ? env : { ...env, TRUST_PROXY: value }).trustProxy
  t.equal(trustOf(undefined), false)
  t.equal(trustOf('false'), false)
  t.equal(trustOf('0'), false)
  t.equal(trustOf('true'), 1, 'true is one hop, never every hop')
  t.equal(trustOf('2'), 2)
  const list = ['127.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8', 'loopback']
  t.same(trustOf(' 127.0.0.1, 10.0.0.0/8 ,::1,fd00::/8,loopback'), list, 'a list, trimmed')
  for (const bad of ['10.0.0.0/33', 'proxy.internal', '127.0.0.1,*', '10.0.0.0/8/1', 'fd00::/129'])
    t.throws(() => trustOf(bad), /TRUST_PROXY/, `'${bad}' stops the start`)
})
