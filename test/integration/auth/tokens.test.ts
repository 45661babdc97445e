// Bearer tokens (API reference 5.1, D20): what is refused, logout, revocation and live account state.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { startTestApi, VALID } from '../../helpers/api.js'
import { assertError } from './envelope.js'
import { forgeToken, secretOf } from './jwt.js'

const INVALID = 'Token inválido o expirado'

t.test('D20: a request without a token is 401 Token no proporcionado', async (t) => {
  const api = await startTestApi(t)
  for (const [method, path] of [
    ['GET', '/me'],
    ['POST', '/auth/logout'],
    ['GET', '/denuncias'],
    ['GET', '/denuncias/DEN-2026-00001'],
    ['DELETE', '/usuarios/USR-2026-00001'],
  ] as const)
    assertError(t, await api.request(method, path), 401, 'Token no proporcionado', `${method} ${path}`)
  assertError(
    t,
    await api.request('POST', '/denuncias', { body: VALID['denuncias']!() }),
    401,
    'Token no proporcionado',
    'POST without token',
  )
  assertError(
    t,
    await api.request('GET', '/me', { headers: { authorization: '' } }),
    401,
    'Token no proporcionado',
    'empty header',
  )
})

t.test('D20: tokens the service did not issue, or no longer honours, are 401 Token inválido o expirado', async (t) => {
  const api = await startTestApi(t)
  const secret = secretOf(api.dataDir)
  const me = await api.request('GET', '/me', { token: await api.adminToken() })
  const sub = me.body.data._id as string
  const now = Math.floor(Date.now() / 1000)

  // The forging itself is right: a token signed with the real secret is accepted.
  const genuine = await api.request('GET', '/me', { token: forgeToken({ secret, claims: { sub } }) })
  t.equal(genuine.status, 200, 'a well-formed token signed with the secret passes')

  const cases: Record<string, string> = {
    garbage: 'not-a-token',
    'three garbage parts': 'abc.def.ghi',
    'wrong signature': forgeToken({ secret: `${secret}-other`, claims: { sub } }),
    'tampered payload': (() => {
      const [header, , signature] = forgeToken({ secret, claims: { sub } }).split('.')
      const payload = Buffer.from(JSON.stringify({ sub: 'USR-2026-99999', jti: 'x', exp: now + 3600 })).toString(
        'base64url',
      )
      return `${header}.${payload}.${signature}`
    })(),
    'alg none': forgeToken({ secret, claims: { sub }, header: { alg: 'none', typ: 'JWT' }, sign: false }),
    'alg HS512': forgeToken({ secret, claims: { sub }, header: { alg: 'HS512', typ: 'JWT' } }),
    expired: forgeToken({ secret, claims: { sub, iat: now - 8 * 86400, exp: now - 60 } }),
    'unknown user': forgeToken({ secret, claims: { sub: 'USR-2026-99999' } }),
    'no jti': forgeToken({ secret, claims: { sub, jti: undefined } }),
    'no expiry': forgeToken({ secret, claims: { sub, exp: undefined } }),
    'no sub': forgeToken({ secret }),
  }
  for (const [name, token] of Object.entries(cases))
    assertError(t, await api.request('GET', '/me', { token }), 401, INVALID, name)
  for (const header of [
    'Basic YWRtaW46eA==',
    'Bearer',
    `bearer ${forgeToken({ secret, claims: { sub } })}`,
    `Bearer ${forgeToken({ secret, claims: { sub } })} extra`,
  ])
    assertError(
      t,
      await api.request('GET', '/me', { headers: { authorization: header } }),
      401,
      INVALID,
      `header '${header.slice(0, 12)}...'`,
    )
})

t.test('D20: a token expires 7 days after issue', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const claims = JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString())
  t.type(claims.sub, 'string')
  t.type(claims.jti, 'string')
  t.equal(claims.exp - claims.iat, 7 * 86400)
  const header = JSON.parse(Buffer.from(token.split('.')[0] as string, 'base64url').toString())
  t.equal(header.alg, 'HS256')
  const second = await api.login()
  t.not(
    JSON.parse(Buffer.from(second.split('.')[1] as string, 'base64url').toString()).jti,
    claims.jti,
    'a unique jti per token',
  )
})

t.test('D20, D23: logout answers Sesión cerrada and revokes only that token', async (t) => {
  const api = await startTestApi(t)
  const token = await api.login()
  const other = await api.login()
  const reply = await api.request('POST', '/auth/logout', { token })
  t.equal(reply.status, 200)
  t.same(reply.body, { success: true, data: { message: 'Sesión cerrada' } })
  assertError(t, await api.request('GET', '/me', { token }), 401, INVALID, 'revoked token on /me')
  assertError(t, await api.request('GET', '/denuncias', { token }), 401, INVALID, 'revoked token on a module')
  assertError(t, await api.request('POST', '/auth/logout', { token }), 401, INVALID, 'a second logout')
  t.equal((await api.request('GET', '/me', { token: other })).status, 200, 'another session of the same user goes on')
})

t.test('D20: revocation survives a restart', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-test-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  let revoked = ''
  let kept = ''
  await t.test('first run: log out one of two tokens', async (t) => {
    const api = await startTestApi(t, { dataDir })
    revoked = await api.login()
    kept = await api.login()
    t.equal((await api.request('POST', '/auth/logout', { token: revoked })).status, 200)
    await api.service.close()
  })
  await t.test('second run on the same data directory', async (t) => {
    const api = await startTestApi(t, { dataDir })
    assertError(t, await api.request('GET', '/me', { token: revoked }), 401, INVALID, 'logged-out token after restart')
    t.equal((await api.request('GET', '/me', { token: kept })).status, 200, 'the other token still works after restart')
  })
})

t.test('D20: account changes apply to existing tokens at once', async (t) => {
  const api = await startTestApi(t)
  const admin = await api.adminToken()

  t.test('a disabled user is refused on the next request', async (t) => {
    const user = await api.userWithRole('oficial')
    t.equal((await api.request('GET', '/denuncias', { token: user.token })).status, 200)
    t.equal((await api.request('PUT', `/usuarios/${user.id}`, { token: admin, body: { activo: false } })).status, 200)
    assertError(t, await api.request('GET', '/denuncias', { token: user.token }), 401, INVALID, 'disabled')
    assertError(t, await api.request('GET', '/me', { token: user.token }), 401, INVALID, 'disabled on /me')
    t.equal((await api.request('PUT', `/usuarios/${user.id}`, { token: admin, body: { activo: true } })).status, 200)
    assertError(
      t,
      await api.request('GET', '/me', { token: user.token }),
      401,
      INVALID,
      'enabled again, a token issued before the disable stays dead',
    )
  })

  t.test('a deleted user is refused on the next request', async (t) => {
    const user = await api.userWithRole('agente')
    t.equal((await api.request('GET', '/me', { token: user.token })).status, 200)
    t.equal((await api.request('DELETE', `/usuarios/${user.id}`, { token: admin })).status, 200)
    assertError(t, await api.request('GET', '/me', { token: user.token }), 401, INVALID, 'deleted')
    assertError(t, await api.request('GET', '/denuncias', { token: user.token }), 401, INVALID, 'deleted on a module')
  })

  t.test('a role change takes effect on the next request', async (t) => {
    const user = await api.userWithRole('consulta')
    t.equal((await api.request('GET', '/denuncias', { token: user.token })).status, 200)
    assertError(
      t,
      await api.request('POST', '/denuncias', { token: user.token, body: VALID['denuncias']!() }),
      403,
      'Sin permisos para esta operación',
      'consulta creates',
    )
    t.equal((await api.request('PUT', `/usuarios/${user.id}`, { token: admin, body: { rol: 'oficial' } })).status, 200)
    t.equal(
      (await api.request('POST', '/denuncias', { token: user.token, body: VALID['denuncias']!() })).status,
      201,
      'as oficial, the same token creates',
    )
    t.equal((await api.request('GET', '/me', { token: user.token })).body.data.rol, 'oficial')
    t.equal((await api.request('PUT', `/usuarios/${user.id}`, { token: admin, body: { rol: 'consulta' } })).status, 200)
    assertError(
      t,
      await api.request('POST', '/denuncias', { token: user.token, body: VALID['denuncias']!() }),
      403,
      'Sin permisos para esta operación',
      'demoted back',
    )
  })
})

t.test('D20: a token accepted once is refused once its exp has passed (verified tokens are cached)', async (t) => {
  const api = await startTestApi(t)
  const secret = secretOf(api.dataDir)
  const me = await api.request('GET', '/me', { token: await api.adminToken() })
  const sub = me.body.data._id as string
  const exp = Math.floor(Date.now() / 1000) + 4
  const token = forgeToken({ secret, claims: { sub, exp } })
  t.equal((await api.request('GET', '/me', { token })).status, 200, 'accepted before its exp')
  t.equal((await api.request('GET', '/me', { token })).status, 200, 'and again, from the cache')
  await new Promise((resolve) => setTimeout(resolve, exp * 1000 - Date.now() + 100))
  assertError(t, await api.request('GET', '/me', { token }), 401, INVALID, 'the same token after its exp')
})
