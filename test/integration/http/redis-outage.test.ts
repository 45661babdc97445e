// When the Redis of REDIS_URL does not answer, the service goes on,
// limited and protected: D24 counted per process, failed logins in the database, and a warning.
import t from 'tap'
import { ADMIN, startTestApi } from '../../helpers/api.js'
import { captureLogs } from '../protection/support.js'

t.test('Redis away: rate limits count per process, failed logins in the database, and the log says so', async (t) => {
  const logs = captureLogs()
  const api = await startTestApi(t, {
    clock: () => new Date('2026-11-23T10:00:30.000Z'),
    // Port 1: nothing listens there.
    env: { REDIS_URL: 'redis://127.0.0.1:1', RATE_LIMIT_IP_PER_MINUTE: '8', LOGIN_MAX_FAILURES: '3' },
    logger: { level: 'warn', stream: logs.stream },
  })
  const login = (password: string) =>
    api.request('POST', '/auth/login', { body: { username: ADMIN.username, password } })
  for (let i = 1; i <= 3; i++) t.equal((await login('wrong')).status, 401, `failure ${i}`)
  const waiting = await login(ADMIN.password)
  t.equal(waiting.status, 429, 'failed logins are still counted')
  t.match(waiting.body.details, [{ field: 'username' }], 'by the login protection')
  const replies = []
  for (let i = 0; i < 5; i++) replies.push(await api.request('GET', '/me'))
  t.same(
    replies.map((r) => r.status),
    [401, 401, 401, 401, 429],
    'the per-address limit still holds: 8 then 429',
  )
  t.equal(replies[0]!.headers['x-ratelimit-remaining'], '3')
  t.match(logs.text(), /Redis no responde/, 'the outage is logged')
  t.equal(logs.text().match(/Redis no responde/g)?.length, 1, 'once, not once per request')
})
