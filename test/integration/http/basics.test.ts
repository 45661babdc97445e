// HTTP basics: /health (D3), unknown routes (D23), body limits and content types (D7), base path (D1).
import t from 'tap'
import { startTestApi } from '../../helpers/api.js'
import { assertError } from '../auth/envelope.js'

t.test('D3: GET /health answers ok without a token', async (t) => {
  const api = await startTestApi(t)
  const reply = await api.request('GET', '/health')
  t.equal(reply.status, 200)
  t.same(reply.body, { success: true, data: { status: 'ok' } })
  t.match(reply.headers['content-type'], /^application\/json/)
  const withGarbageToken = await api.request('GET', '/health', { token: 'not-a-token' })
  t.equal(withGarbageToken.status, 200, 'a token is not even looked at')
})

t.test('D3: GET /health is 503 in the envelope when the database does not answer', async (t) => {
  const api = await startTestApi(t)
  await api.service.database.close()
  const reply = await api.request('GET', '/health')
  assertError(t, reply, 503, /.+/, 'database closed')
  t.notMatch(JSON.stringify(reply.body), /sqlite|select|database|stack|at /i, 'no internals in the answer')
})

t.test('D23: a request that fails inside never leaks the cause', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  await api.service.database.close()
  const reply = await api.request('GET', '/denuncias', { token })
  t.ok(reply.status >= 500, `a server error (${reply.status})`)
  t.equal(reply.body.success, false)
  if (reply.status === 500) t.equal(reply.body.error, 'Error interno del servidor')
  t.same(Object.keys(reply.body).sort(), ['error', 'success'], 'only the envelope')
  t.notMatch(JSON.stringify(reply.body), /sqlite|select|from |database|stack|\.ts:/i, 'no SQL, no stack')
})

t.test('D23: an unknown route is 404 Ruta no encontrada', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  assertError(t, await api.request('GET', '/no-existe'), 404, 'Ruta no encontrada', 'unknown path without token')
  assertError(
    t,
    await api.request('GET', '/no-existe', { token }),
    404,
    'Ruta no encontrada',
    'unknown path with token',
  )
  assertError(
    t,
    await api.request('POST', '/no-existe/algo', { token, body: {} }),
    404,
    'Ruta no encontrada',
    'POST to an unknown path',
  )
  assertError(
    t,
    await api.request('PATCH', '/denuncias', { token, body: {} }),
    404,
    'Ruta no encontrada',
    'a method the module does not offer',
  )
  assertError(
    t,
    await api.request('GET', '/denuncias/DEN-2026-00001/otra', { token }),
    404,
    'Ruta no encontrada',
    'too deep',
  )
  const outside = await api.service.app.inject({ method: 'GET', url: '/health' })
  assertError(
    t,
    { status: outside.statusCode, body: outside.json(), headers: outside.headers },
    404,
    'Ruta no encontrada',
    'outside BASE_PATH',
  )
})

t.test('D7: a body over 1 MiB is 413 in the envelope', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const big = JSON.stringify({ tipo: 'penal', juzgado: 'x'.repeat(1024 * 1024) })
  assertError(
    t,
    await api.request('POST', '/atestados', { token, rawBody: big }),
    413,
    'La solicitud supera el tamaño máximo permitido',
    'create',
  )
  assertError(
    t,
    await api.request('POST', '/auth/login', { rawBody: big }),
    413,
    'La solicitud supera el tamaño máximo permitido',
    'login',
  )
  const justUnder = JSON.stringify({ tipo: 'penal', juzgado: 'x'.repeat(1024 * 1024 - 100) })
  t.not(
    (await api.request('POST', '/atestados', { token, rawBody: justUnder })).status,
    413,
    'just under 1 MiB is not too large',
  )
})

t.test('D7: a body that is not JSON is 415 or 400 in the envelope', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const message = 'Tipo de contenido no admitido: envíe application/json'
  for (const type of [
    'text/plain',
    'application/x-www-form-urlencoded',
    'application/xml',
    'multipart/form-data; boundary=x',
  ]) {
    const reply = await api.request('POST', '/atestados', {
      token,
      rawBody: 'tipo=penal',
      headers: { 'content-type': type },
    })
    assertError(t, reply, 415, message, type)
  }
  assertError(
    t,
    await api.request('POST', '/auth/login', { rawBody: 'username=admin', headers: { 'content-type': 'text/plain' } }),
    415,
    message,
    'login',
  )
  const json = await api.request('POST', '/atestados', {
    token,
    body: { tipo: 'penal', juzgado: 'J1' },
    headers: { 'content-type': 'application/json; charset=utf-8' },
  })
  t.equal(json.status, 201, 'application/json with a charset is accepted')
  assertError(
    t,
    await api.request('POST', '/atestados', { token, rawBody: '{"tipo": "penal",' }),
    400,
    'JSON inválido',
    'malformed JSON',
  )
  assertError(
    t,
    await api.request('POST', '/atestados', { token, rawBody: '{"__proto__": {"x": 1}}' }),
    400,
    /.+/,
    'prototype poisoning',
  )
})

t.test('D1: BASE_PATH moves every route', async (t) => {
  const api = await startTestApi(t, { env: { BASE_PATH: '/v1' } })
  t.equal(api.base, '/v1')
  const inject = async (url: string) => api.service.app.inject({ method: 'GET', url })
  const health = await inject('/v1/health')
  t.equal(health.statusCode, 200)
  t.same(health.json(), { success: true, data: { status: 'ok' } })
  const login = await api.service.app.inject({
    method: 'POST',
    url: '/v1/auth/login',
    payload: { username: 'admin', password: 'patrulla-nocturna-47' },
  })
  t.equal(login.statusCode, 200, 'login below /v1')
  const token = login.json().data.token as string
  const list = await api.service.app.inject({
    method: 'GET',
    url: '/v1/denuncias',
    headers: { authorization: `Bearer ${token}` },
  })
  t.equal(list.statusCode, 200, 'modules below /v1')
  for (const url of ['/api/health', '/health', '/denuncias', '/api/denuncias']) {
    const reply = await inject(url)
    assertError(
      t,
      { status: reply.statusCode, body: reply.json(), headers: reply.headers },
      404,
      'Ruta no encontrada',
      `${url} is not served`,
    )
  }
})

t.test('D1: the default BASE_PATH is /api, and / serves at the root', async (t) => {
  const standard = await startTestApi(t)
  t.equal(standard.base, '/api')
  t.equal((await standard.service.app.inject({ method: 'GET', url: '/api/health' })).statusCode, 200)
  const root = await startTestApi(t, { env: { BASE_PATH: '/' } })
  t.equal(root.base, '')
  t.equal((await root.service.app.inject({ method: 'GET', url: '/health' })).statusCode, 200)
})
