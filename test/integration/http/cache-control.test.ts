// Personal data and tokens must not be kept by browsers or proxies: every
// answer that is not public carries Cache-Control: no-store, errors included.
import t from 'tap'
import { ADMIN, startTestApi, VALID } from '../../helpers/api.js'

t.test('Cache-Control: no-store on every authenticated answer', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const record = await api.create('denuncias', VALID['denuncias']!())
  const answers = {
    'POST /auth/login': await api.request('POST', '/auth/login', {
      body: { username: 'admin', password: 'otra-cosa-distinta' },
    }),
    'GET /me': await api.request('GET', '/me', { token }),
    'GET /denuncias': await api.request('GET', '/denuncias', { token }),
    'GET /denuncias/{id}': await api.request('GET', `/denuncias/${String(record._id)}`, { token }),
    'GET /denuncias/{id}/historial': await api.request('GET', `/denuncias/${String(record._id)}/historial`, { token }),
    'PUT /denuncias/{id}': await api.request('PUT', `/denuncias/${String(record._id)}`, {
      token,
      body: { descripcion: 'Otra' },
    }),
    'GET /auditoria': await api.request('GET', '/auditoria', { token }),
    'a 400': await api.request('GET', '/denuncias?limit=0', { token }),
    'a 401': await api.request('GET', '/denuncias', { token: 'no.es.token' }),
    'a 404': await api.request('GET', '/denuncias/DEN-2026-99999', { token }),
  }
  for (const [name, reply] of Object.entries(answers)) t.equal(reply.headers['cache-control'], 'no-store', name)
  const login = await api.request('POST', '/auth/login', { body: { username: 'admin', password: ADMIN.password } })
  t.equal(login.headers['cache-control'], 'no-store', 'the answer that carries a token')
  t.not((await api.request('GET', '/health')).headers['cache-control'], 'no-store', '/health is public')
  t.not(
    (await api.request('GET', '/openapi.json')).headers['cache-control'],
    'no-store',
    'the OpenAPI document is public',
  )
})
