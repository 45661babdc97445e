// D7: a NUL character (U+0000) anywhere in a request is a 400 naming where it is, on
// SQLite and PostgreSQL alike (PostgreSQL cannot store it), and nothing is written.
import t from 'tap'
import { startTestApi, VALID } from '../../helpers/api.js'
import { assertError } from '../auth/envelope.js'

t.test('D7: U+0000 in a body, a list, a filter, a login or a path is a 400, never a 500', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const field = await api.request('POST', '/denuncias', {
    token,
    body: { ...VALID['denuncias']!(), descripcion: 'a\u0000b' },
  })
  assertError(t, field, 400, /carácter nulo/, 'in a field')
  t.same(field.body.details, [
    { field: 'descripcion', message: "'descripcion' contiene un carácter nulo (U+0000), que no se admite" },
  ])
  const nested = await api.request('POST', '/atestados', {
    token,
    body: { ...VALID['atestados']!(), victimas: [{ nombre: 'x\u0000' }] },
  })
  assertError(t, nested, 400, /carácter nulo/, 'inside a list')
  t.equal(nested.body.details[0].field, 'victimas[0].nombre')
  const filter = await api.request('GET', '/denuncias?tipo=a%00b', { token })
  assertError(t, filter, 400, /carácter nulo/, 'in a filter')
  t.equal(filter.body.details[0].field, 'tipo')
  assertError(
    t,
    await api.request('POST', '/auth/login', { body: { username: 'admin\u0000', password: 'x' } }),
    400,
    /carácter nulo/,
    'in a login',
  )
  assertError(t, await api.request('GET', '/denuncias/DEN-2026-0000%00', { token }), 400, /carácter nulo/, 'in a path')
  t.equal((await api.request('GET', '/denuncias', { token })).body.data.total, 0, 'nothing was written')
  t.equal(
    (
      await api.request('POST', '/denuncias', {
        token,
        body: { ...VALID['denuncias']!(), descripcion: 'a\\u0000b escrito como texto' },
      })
    ).status,
    201,
    'the six characters \\u0000 as text are fine',
  )
})
