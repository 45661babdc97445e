// CORS for a front-end dev server: with CORS_ORIGINS its preflight is
// answered with the CORS headers; without it, or from another origin, the preflight is refused
// and the log says why at info, naming the origin and CORS_ORIGINS.
import t from 'tap'
import { captureLogs } from '../protection/support.js'
import { startTestApi } from '../../helpers/api.js'

const DEV_SERVER = 'http://localhost:5173'
const preflight = (origin: string) => ({
  headers: {
    origin,
    'access-control-request-method': 'POST',
    'access-control-request-headers': 'authorization,content-type',
  },
})

const refusals = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { level: number; msg: string; origin?: string })
    .filter((l) => l.msg.startsWith('CORS: consulta previa rechazada'))

t.test('without CORS_ORIGINS a preflight is refused and the log says why, at info', async (t) => {
  const logs = captureLogs()
  const api = await startTestApi(t, { logger: { level: 'info', stream: logs.stream } })
  const reply = await api.request('OPTIONS', '/denuncias', preflight(DEV_SERVER))
  t.equal(reply.headers['access-control-allow-origin'], undefined)
  t.match(refusals(logs.text()), [
    {
      level: 30,
      origin: DEV_SERVER,
      msg: /origen http:\/\/localhost:5173: CORS_ORIGINS está vacío.*añádalo a CORS_ORIGINS/,
    },
  ])
  await api.request('GET', '/health', { headers: { origin: DEV_SERVER } })
  t.equal(refusals(logs.text()).length, 1, 'only preflights are logged, not every request with an Origin')
})

t.test('CORS_ORIGINS=http://localhost:5173 admits the dev server; another origin is refused and logged', async (t) => {
  const logs = captureLogs()
  const api = await startTestApi(t, {
    env: { CORS_ORIGINS: `${DEV_SERVER}, https://intranet.example` },
    logger: { level: 'info', stream: logs.stream },
  })
  const ok = await api.request('OPTIONS', '/denuncias', preflight(DEV_SERVER))
  t.equal(ok.status, 204)
  t.equal(ok.headers['access-control-allow-origin'], DEV_SERVER)
  t.match(ok.headers['access-control-allow-headers'], /authorization/)
  t.same(refusals(logs.text()), [], 'an allowed origin is not logged')
  const other = await api.request('OPTIONS', '/denuncias', preflight('http://localhost:3001'))
  t.equal(other.headers['access-control-allow-origin'], undefined)
  t.match(refusals(logs.text()), [
    {
      level: 30,
      origin: 'http://localhost:3001',
      msg: /'http:\/\/localhost:3001' no está en CORS_ORIGINS \(http:\/\/localhost:5173, https:\/\/intranet\.example\)/,
    },
  ])
})
