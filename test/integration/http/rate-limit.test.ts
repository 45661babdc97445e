// Rate limits (API reference 8, D24): per IP per minute and per token per hour, in fixed windows.
import t from 'tap'
import type { Reply } from '../../helpers/api.js'
import { startTestApi } from '../../helpers/api.js'
import { assertError } from '../auth/envelope.js'

const TOO_MANY = 'Demasiadas solicitudes'
/** 30 s into a minute and into an hour, so reset times are exact numbers. */
const START = Date.parse('2026-11-23T10:00:30.000Z')

function controlledClock() {
  let now = START
  return { clock: () => new Date(now), advance: (ms: number) => void (now += ms) }
}

const limitHeaders = (reply: Reply) => ({
  limit: reply.headers['x-ratelimit-limit'],
  remaining: reply.headers['x-ratelimit-remaining'],
  reset: reply.headers['x-ratelimit-reset'],
})

t.test('D24: per IP per minute, the request past the limit is 429 with retry-after', async (t) => {
  const { clock } = controlledClock()
  const api = await startTestApi(t, { clock, env: { RATE_LIMIT_IP_PER_MINUTE: '5' } })
  for (let i = 1; i <= 5; i++) {
    const reply = await api.request('GET', '/denuncias')
    assertError(t, reply, 401, 'Token no proporcionado', `request ${i} passes the limit`)
    t.same(limitHeaders(reply), { limit: '5', remaining: String(5 - i), reset: '30' }, `request ${i} headers`)
  }
  const sixth = await api.request('GET', '/denuncias')
  assertError(t, sixth, 429, TOO_MANY, 'the 6th request')
  t.equal(sixth.headers['retry-after'], '30', 'retry-after: seconds until the window resets')
  t.same(limitHeaders(sixth), { limit: '5', remaining: '0', reset: '30' }, 'a 429 carries the headers too')
  assertError(
    t,
    await api.request('POST', '/auth/login', { body: { username: 'admin', password: 'x' } }),
    429,
    TOO_MANY,
    'login too',
  )
  assertError(t, await api.request('GET', '/no-existe'), 429, TOO_MANY, 'and unknown routes')
})

t.test('D24, D3: /health is exempt', async (t) => {
  const { clock } = controlledClock()
  const api = await startTestApi(t, { clock, env: { RATE_LIMIT_IP_PER_MINUTE: '3' } })
  for (let i = 0; i < 10; i++) {
    const reply = await api.request('GET', '/health')
    t.equal(reply.status, 200, `health ${i} is never limited`)
  }
  const first = await api.request('GET', '/me')
  t.equal(first.headers['x-ratelimit-remaining'], '2', '/health did not use up the allowance')
  await api.request('GET', '/me')
  await api.request('GET', '/me')
  t.equal((await api.request('GET', '/me')).status, 429, 'the limit is reached by other routes')
  t.same(
    await api.request('GET', '/health').then((r) => [r.status, r.body]),
    [200, { success: true, data: { status: 'ok' } }],
    'health still answers',
  )
})

t.test('D24: every response carries the rate-limit headers', async (t) => {
  const api = await startTestApi(t, { env: { RATE_LIMIT_IP_PER_MINUTE: '1000', RATE_LIMIT_TOKEN_PER_HOUR: '2000' } })
  const token = await api.adminToken()
  const { token: consulta } = await api.userWithRole('consulta')
  const replies: Record<string, Reply> = {
    '200': await api.request('GET', '/denuncias', { token }),
    '201': await api.request('POST', '/atestados', { token, body: { tipo: 'penal', juzgado: 'Juzgado 1' } }),
    '400': await api.request('POST', '/atestados', { token, body: {} }),
    '401': await api.request('GET', '/me'),
    '403': await api.request('GET', '/usuarios', { token: consulta }),
    '404': await api.request('GET', '/no-existe', { token }),
    login: await api.request('POST', '/auth/login', { body: { username: 'admin', password: 'x' } }),
  }
  for (const [name, reply] of Object.entries(replies)) {
    const headers = limitHeaders(reply)
    t.match(
      headers,
      { limit: /^\d+$/, remaining: /^\d+$/, reset: /^\d+$/ },
      `${name}: x-ratelimit-limit, -remaining and -reset`,
    )
    t.ok(Number(headers.reset) <= 3600, `${name}: reset is seconds away`)
  }
  t.equal(replies['401']!.headers['x-ratelimit-limit'], '1000', 'without a token only the IP limit applies')
})

t.test('D24: per token per hour, and the headers show the tighter limit', async (t) => {
  const { clock } = controlledClock()
  const api = await startTestApi(t, { clock, env: { RATE_LIMIT_IP_PER_MINUTE: '100', RATE_LIMIT_TOKEN_PER_HOUR: '3' } })
  const token = await api.login()
  for (let i = 1; i <= 3; i++) {
    const reply = await api.request('GET', '/me', { token })
    t.equal(reply.status, 200, `authenticated request ${i}`)
    t.same(
      limitHeaders(reply),
      { limit: '3', remaining: String(3 - i), reset: String(3600 - 30) },
      `request ${i}: the token limit is the tighter one`,
    )
  }
  const fourth = await api.request('GET', '/me', { token })
  assertError(t, fourth, 429, TOO_MANY, 'the 4th request with the token')
  t.equal(fourth.headers['retry-after'], String(3600 - 30))
  assertError(
    t,
    await api.request('POST', '/auth/logout', { token }),
    429,
    TOO_MANY,
    'every route counts against the token',
  )
  const anonymous = await api.request('GET', '/me')
  assertError(t, anonymous, 401, 'Token no proporcionado', 'without the token the IP still has room')
  t.equal(anonymous.headers['x-ratelimit-limit'], '100')
  const other = await api.login()
  t.equal((await api.request('GET', '/me', { token: other })).status, 200, 'another token has its own count')
})

t.test('D24: the IP limit shows when it is the tighter one', async (t) => {
  const { clock } = controlledClock()
  const api = await startTestApi(t, {
    clock,
    env: { RATE_LIMIT_IP_PER_MINUTE: '4', RATE_LIMIT_TOKEN_PER_HOUR: '1000' },
  })
  const token = await api.login()
  const reply = await api.request('GET', '/me', { token })
  t.same(limitHeaders(reply), { limit: '4', remaining: '2', reset: '30' })
})

t.test('D24: fixed windows reset at the time x-ratelimit-reset gives', async (t) => {
  const { clock, advance } = controlledClock()
  const api = await startTestApi(t, { clock, env: { RATE_LIMIT_IP_PER_MINUTE: '2', RATE_LIMIT_TOKEN_PER_HOUR: '3' } })
  await api.request('GET', '/me')
  await api.request('GET', '/me')
  t.equal((await api.request('GET', '/me')).status, 429, 'IP limit reached')
  advance(29_999)
  t.equal((await api.request('GET', '/me')).status, 429, 'still the same window a millisecond before the reset')
  advance(1)
  const fresh = await api.request('GET', '/me')
  assertError(t, fresh, 401, 'Token no proporcionado', 'a new minute: allowed again')
  t.same(limitHeaders(fresh), { limit: '2', remaining: '1', reset: '60' }, 'the count starts over')

  advance(60_000)
  const token = await api.login()
  for (let i = 0; i < 3; i++) {
    advance(60_000) // a new IP window every time, so only the token counts
    t.equal((await api.request('GET', '/me', { token })).status, 200)
  }
  advance(60_000)
  const over = await api.request('GET', '/me', { token })
  t.equal(over.status, 429, 'token limit reached within the hour')
  const wait = Number(over.headers['retry-after'])
  t.ok(wait > 60 && wait <= 3600, 'retry-after points at the end of the hour')
  advance(wait * 1000)
  t.equal((await api.request('GET', '/me', { token })).status, 200, 'a new hour: the token works again')
})
