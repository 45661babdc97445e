// Resource limits. Body size (D7), filter count and query length, clamped counts
// (D11), malformed URLs and text, and slow clients over a real socket.
import { connect, type Socket } from 'node:net'
import t from 'tap'
import { assertError } from '../auth/envelope.js'
import { startTestApi, VALID } from '../../helpers/api.js'

t.test('D7: a body over 1 MiB is 413 in the envelope and writes nothing', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const reply = await api.request('POST', '/denuncias', {
    token,
    body: { ...VALID['denuncias']!(), descripcion: 'x'.repeat(1024 * 1024) },
  })
  assertError(t, reply, 413, 'La solicitud supera el tamaño máximo permitido')
  t.equal((await api.request('GET', '/denuncias', { token })).body.data.total, 0)
})

t.test('more filters than service.list.max_filters is one 400 in Spanish', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const max = api.service.spec.service.list.maxFilters
  const fields = api.service.spec.moduleByName
    .get('denuncias')!
    .fields.filter((f) => f.parseFilter !== null && !f.encrypted)
    .map((f) => f.name)
  const names = Array.from(
    { length: max + 1 },
    (_, i) => fields[i % fields.length]! + (i < fields.length ? '' : `_${i}`),
  )
  const reply = await api.request('GET', `/denuncias?${names.map((n) => `${n}=x`).join('&')}`, { token })
  assertError(t, reply, 400, /Demasiados filtros: como máximo 20/)
  t.match(reply.body.details, [{ field: 'filtros' }])
})

t.test('a query string over MAX_QUERY_LENGTH is a 400 in Spanish, on every route', async (t) => {
  const api = await startTestApi(t, { env: { MAX_QUERY_LENGTH: '512' } })
  const token = await api.adminToken()
  for (const path of ['/denuncias', '/denuncias/DEN-2026-00001', '/health', '/auditoria']) {
    assertError(
      t,
      await api.request('GET', `${path}?tipo=${'a'.repeat(512)}`, { token }),
      400,
      'La consulta es demasiado larga: como máximo 512 caracteres',
      path,
    )
  }
  t.equal(
    (await api.request('GET', `/denuncias?tipo=${'a'.repeat(500)}`, { token })).status,
    200,
    'just under the cap is served',
  )
})

t.test('D11: limit and offset of any number of digits clamp instead of failing', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  await api.create('denuncias', VALID['denuncias']!())
  const clamped = await api.request('GET', `/denuncias?limit=${'9'.repeat(16)}`, { token })
  t.equal(clamped.status, 200)
  t.equal(clamped.body.data.limit, 1000)
  t.equal(clamped.body.data.records.length, 1)
  const far = await api.request('GET', `/denuncias?offset=${'9'.repeat(30)}`, { token })
  t.equal(far.status, 200, 'an offset past any end is an empty page')
  t.same(far.body.data.records, [])
  t.equal(far.body.data.total, 1)
})

t.test('a malformed URL and text with lone surrogates are 400 in the envelope', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  for (const path of ['/%', '/denuncias/%E0%A4%A', '/denuncias/%'])
    assertError(t, await api.request('GET', path, { token }), 400, 'La URL no es válida', path)
  for (const path of [`/denuncias/${'x'.repeat(101)}`, `/denuncias/${'x'.repeat(101)}/historial`])
    assertError(
      t,
      await api.request('GET', path, { token }),
      414,
      'La URL es demasiado larga',
      'a path segment over 100 characters',
    )
  const reply = await api.request('POST', '/denuncias', {
    token,
    rawBody: JSON.stringify({ ...VALID['denuncias']!(), lugar_hechos: 'Plaza ' }).replace('Plaza ', 'Plaza \\ud800'),
  })
  assertError(t, reply, 400, /lugar_hechos/)
  t.equal((await api.request('GET', '/denuncias', { token })).body.data.total, 0, 'nothing stored')
})

/** Resolves with what the server sent before it closed the socket. */
const closed = (socket: Socket): Promise<string> =>
  new Promise((resolve) => {
    let text = ''
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()))
    socket.on('close', () => resolve(text))
    socket.on('error', () => undefined)
  })

t.test('slow clients: a request trickling in, a body never finished and an idle socket are closed', async (t) => {
  const api = await startTestApi(t, { env: { REQUEST_TIMEOUT_MS: '600', CONNECTION_TIMEOUT_MS: '1500' } })
  const address = await api.service.app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = new URL(address)
  const open = async () => {
    const socket = connect(Number(port), '127.0.0.1')
    await new Promise((resolve) => socket.once('connect', resolve))
    t.teardown(() => void socket.destroy())
    return socket
  }

  // Slowloris: one header line every 200 ms; each byte resets an idle timer, not the request timer.
  const trickle = await open()
  const trickleClosed = closed(trickle)
  trickle.write('GET /api/health HTTP/1.1\r\nHost: x\r\n')
  let sent = 0
  const timer = setInterval(() => {
    if (!trickle.destroyed && !trickle.writableEnded) trickle.write(`X-Slow-${sent++}: y\r\n`)
  }, 200)
  t.teardown(() => clearInterval(timer))
  t.match(await trickleClosed, /^(HTTP\/1\.1 408 [^]*)?$/, 'closed (408 or nothing) although it kept sending')
  clearInterval(timer)
  t.ok(sent < 100, `closed after ${sent} header lines, long before the client finished`)

  const body = await open()
  const bodyClosed = closed(body)
  body.write(
    'POST /api/denuncias HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"tipo":',
  )
  t.match(await bodyClosed, /^(HTTP\/1\.1 408 [^]*)?$/, 'a body that never completes is cut off (408 or nothing)')

  const idle = await open()
  const idleClosed = closed(idle)
  idle.write('GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n')
  t.match(await idleClosed, /^HTTP\/1\.1 200/, 'an idle keep-alive socket is closed after its answer')

  const health = await fetch(`${address}/api/health`)
  t.equal(health.status, 200, 'the server still serves')
})

t.test('array and mixed values nest at most 32 levels: deeper is a 400, never a stack overflow', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`
  for (const depth of [33, 5000, 100_000]) {
    const reply = await api.request('POST', '/atestados', {
      token,
      rawBody: `{"tipo":"penal","juzgado":"J1","imputados":${nested(depth)}}`,
    })
    assertError(t, reply, 400, /como máximo 32 niveles de anidamiento/, `depth ${depth}`)
  }
  const ok = await api.request('POST', '/atestados', {
    token,
    rawBody: `{"tipo":"penal","juzgado":"J1","imputados":${nested(32)}}`,
  })
  t.equal(ok.status, 201, '32 levels are stored')
  t.equal(JSON.stringify(ok.body.data.imputados), nested(32), 'and read back as sent')
})
