// Operability: a request id in every answer and on every log line of a request,
// security headers, CORS only for configured origins (CORS_ORIGINS), redaction as a safety net.
import t from 'tap'
import { loadSettings } from '../../../src/app/settings.js'
import { captureLogs } from '../protection/support.js'
import { startTestApi } from '../../helpers/api.js'

t.test(
  'x-request-id: generated when absent, kept when sane, replaced when not; the same id is on the log lines',
  async (t) => {
    const logs = captureLogs()
    const api = await startTestApi(t, { logger: { level: 'debug', stream: logs.stream } })
    const fresh = await api.request('GET', '/health')
    t.match(fresh.headers['x-request-id'], /^[0-9a-f-]{36}$/, 'a UUID when the client sends none')
    const kept = await api.request('GET', '/me', { headers: { 'x-request-id': 'proxy-42.abc' } })
    t.equal(kept.status, 401)
    t.equal(kept.headers['x-request-id'], 'proxy-42.abc', 'a sane incoming id is kept, on errors too')
    const injected = await api.request('GET', '/health', { headers: { 'x-request-id': 'x\u0001"}{ injected' } })
    t.match(injected.headers['x-request-id'], /^[0-9a-f-]{36}$/, 'an id with odd characters is replaced')
    const long = await api.request('GET', '/health', { headers: { 'x-request-id': 'a'.repeat(300) } })
    t.not(long.headers['x-request-id'], 'a'.repeat(300), 'an overlong id is replaced')
    const missing = await api.request('GET', '/no-existe')
    t.equal(missing.status, 404)
    t.ok(missing.headers['x-request-id'], 'a 404 carries one too')

    const lines = logs
      .text()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    const requestLines = lines.filter(
      (l) => l['req'] !== undefined || l['res'] !== undefined || l['msg'] === 'access refused',
    )
    t.ok(requestLines.length >= 10, 'request lines were logged')
    t.same(
      requestLines.filter((l) => typeof l['reqId'] !== 'string'),
      [],
      'every request line has reqId',
    )
    t.ok(
      lines.some((l) => l['reqId'] === 'proxy-42.abc' && l['msg'] === 'access refused'),
      'the id a proxy sent is the one logged',
    )
    t.ok(
      lines.every((l) => typeof l['level'] === 'number' && typeof l['time'] === 'number'),
      'JSON lines with level and time (pino)',
    )
  },
)

t.test('the logger redacts authorization headers, passwords, tokens and bodies whatever is passed to it', async (t) => {
  const logs = captureLogs()
  const api = await startTestApi(t, { logger: { level: 'debug', stream: logs.stream } })
  api.service.app.log.debug(
    {
      req: { headers: { authorization: 'Bearer SECRET-TOKEN-1' }, body: { password: 'SECRET-PASSWORD-1' } },
      headers: { authorization: 'Bearer SECRET-TOKEN-2', cookie: 'sid=SECRET-COOKIE' },
      password: 'SECRET-PASSWORD-2',
      token: 'SECRET-TOKEN-3',
      data: { token: 'SECRET-TOKEN-4' },
      body: { dni: 'SECRET-BODY' },
    },
    'a careless log call',
  )
  const text = logs.text()
  t.match(text, /a careless log call/, 'the line was written')
  t.notMatch(text, /SECRET-/, 'no value of a redacted path')
  t.match(text, /\[oculto\]/)
})

t.test('security headers from helmet on API answers and errors', async (t) => {
  const api = await startTestApi(t)
  for (const reply of [await api.request('GET', '/health'), await api.request('GET', '/denuncias')]) {
    t.equal(reply.headers['x-content-type-options'], 'nosniff')
    t.equal(reply.headers['x-frame-options'], 'SAMEORIGIN')
    t.match(reply.headers['content-security-policy'], /default-src 'self'/)
    t.notMatch(
      reply.headers['content-security-policy'],
      /upgrade-insecure-requests/,
      'the page works over plain HTTP too',
    )
    t.equal(reply.headers['access-control-allow-origin'], undefined, 'no CORS by default')
  }
})

t.test('CORS_ORIGINS: listed origins may call and read the headers; others get no CORS headers', async (t) => {
  const api = await startTestApi(t, { env: { CORS_ORIGINS: 'https://panel.ayto.example, http://localhost:5173/' } })
  const allowed = await api.request('GET', '/health', { headers: { origin: 'https://panel.ayto.example' } })
  t.equal(allowed.headers['access-control-allow-origin'], 'https://panel.ayto.example')
  t.match(allowed.headers['access-control-expose-headers'], /x-request-id/)
  t.match(allowed.headers['access-control-expose-headers'], /x-ratelimit-remaining/)
  const trailing = await api.request('GET', '/health', { headers: { origin: 'http://localhost:5173' } })
  t.equal(
    trailing.headers['access-control-allow-origin'],
    'http://localhost:5173',
    'a trailing slash in the setting is ignored',
  )
  const other = await api.request('GET', '/health', { headers: { origin: 'https://evil.example' } })
  t.equal(other.headers['access-control-allow-origin'], undefined)
  const preflight = await api.request('OPTIONS', '/denuncias', {
    headers: {
      origin: 'https://panel.ayto.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,content-type',
    },
  })
  t.equal(preflight.status, 204)
  t.match(preflight.headers['access-control-allow-headers'], /authorization/)
  t.match(preflight.headers['access-control-allow-methods'], /POST/)
})

t.test('CORS_ORIGINS is checked at start: an origin with a path or no scheme stops it', async (t) => {
  const env = { DATA_DIR: t.testdir() }
  t.same(loadSettings(env).corsOrigins, [])
  t.same(loadSettings({ ...env, CORS_ORIGINS: '*' }).corsOrigins, ['*'])
  t.throws(() => loadSettings({ ...env, CORS_ORIGINS: 'panel.ayto.example' }), /CORS_ORIGINS/)
  t.throws(() => loadSettings({ ...env, CORS_ORIGINS: 'https://a.example/app' }), /CORS_ORIGINS/)
})

t.test('D1: TRUST_PROXY decides whether X-Forwarded-For is the client address', async (t) => {
  for (const [trust, expected] of [
    ['true', '203.0.113.9'],
    ['', '127.0.0.1'],
  ] as const) {
    const logs = captureLogs()
    const api = await startTestApi(t, { env: { TRUST_PROXY: trust }, logger: { level: 'info', stream: logs.stream } })
    await api.request('GET', '/health', { headers: { 'x-forwarded-for': '203.0.113.9' } })
    t.match(logs.text(), new RegExp(`"remoteAddress":"${expected.replaceAll('.', '\\.')}"`), `TRUST_PROXY='${trust}'`)
  }
})
