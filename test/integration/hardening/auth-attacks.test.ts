// Attacks on tokens, roles and login beyond what test/integration/auth covers:
// HS/RS confusion and header tricks (D20), the whole role x role matrix of the account guard
// and mass assignment (D7, D21), brute force on one username and login timing (D19).
import { createHmac, createSign, generateKeyPairSync, randomUUID } from 'node:crypto'
import t from 'tap'
import { roleCovers } from '../../../src/compile/permissions.js'
import { ADMIN, productionBcryptCost, startTestApi, VALID } from '../../helpers/api.js'
import { assertError } from '../auth/envelope.js'
import { forgeToken, secretOf } from '../auth/jwt.js'

const INVALID = 'Token inválido o expirado'
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

t.test('D20: algorithm confusion and header tricks are 401', async (t) => {
  const api = await startTestApi(t)
  const secret = secretOf(api.dataDir)
  const sub = (await api.request('GET', '/me', { token: await api.adminToken() })).body.data._id as string
  const now = Math.floor(Date.now() / 1000)
  const claims = b64({ sub, jti: randomUUID(), iat: now, exp: now + 3600 })
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString()
  const rs256 = (() => {
    const body = `${b64({ alg: 'RS256', typ: 'JWT' })}.${claims}`
    return `${body}.${createSign('RSA-SHA256').update(body).sign(privateKey).toString('base64url')}`
  })()
  const hmacWith = (header: Record<string, unknown>, key: string | Buffer) => {
    const body = `${b64(header)}.${claims}`
    return `${body}.${createHmac('sha256', key).update(body).digest('base64url')}`
  }
  const cases: Record<string, string> = {
    'RS256 signed by an attacker key': rs256,
    'HS256 keyed with an RSA public key (HS/RS confusion)': hmacWith({ alg: 'HS256', typ: 'JWT' }, publicPem),
    'RS256 header over an HMAC with the real secret': hmacWith({ alg: 'RS256', typ: 'JWT' }, secret),
    'alg None (capitalised)': `${b64({ alg: 'None', typ: 'JWT' })}.${claims}.`,
    'alg none with the real signature kept': `${b64({ alg: 'none' })}.${claims}.${hmacWith({ alg: 'HS256', typ: 'JWT' }, secret).split('.')[2]}`,
    'kid pointing at an empty file': hmacWith({ alg: 'HS256', typ: 'JWT', kid: '../../../../dev/null' }, ''),
    'jku to a foreign key set': hmacWith({ alg: 'HS256', typ: 'JWT', jku: 'http://127.0.0.1:1/keys.json' }, 'x'),
    'empty secret': hmacWith({ alg: 'HS256', typ: 'JWT' }, ''),
    'not yet valid (nbf tomorrow)': forgeToken({ secret, claims: { sub, nbf: now + 86400 } }),
    'expired a second ago': forgeToken({ secret, claims: { sub, exp: now - 1 } }),
    'sub is an object': forgeToken({ secret, claims: { sub: { $ne: null } } }),
    'sub with SQL': forgeToken({ secret, claims: { sub: `${sub}' OR '1'='1` } }),
  }
  for (const [name, token] of Object.entries(cases))
    assertError(t, await api.request('GET', '/me', { token }), 401, INVALID, name)
  t.equal(
    (await api.request('GET', '/me', { token: hmacWith({ alg: 'HS256', typ: 'JWT' }, secret) })).status,
    200,
    'control: the same claims signed right pass',
  )
})

t.test('D21: the account guard over every actor role x target role, on create, edit and delete', async (t) => {
  const api = await startTestApi(t, { env: { LOGIN_MAX_FAILURES: '1000' } })
  const admin = await api.adminToken()
  const roles = [...api.service.spec.roles.values()]
  let n = 0
  for (const actor of roles.filter((r) => r.granted.has('usuarios.crear'))) {
    const { token } = await api.userWithRole(actor.name)
    for (const target of roles) {
      n += 1
      const allowed = roleCovers(actor, target)
      const created = await api.request('POST', '/usuarios', {
        token,
        body: { username: `m${n}`, password: 'password-matrix', nombre: 'M', rol: target.name },
      })
      t.equal(created.status, allowed ? 201 : 403, `${actor.name} creates a ${target.name}`)
      const victim = await api.request('POST', '/usuarios', {
        token: admin,
        body: { username: `v${n}`, password: 'password-matrix', nombre: 'V', rol: target.name },
      })
      const path = `/usuarios/${victim.body.data._id}`
      t.equal(
        (await api.request('PUT', path, { token, body: { nombre: 'Cambiado' } })).status,
        allowed ? 200 : 403,
        `${actor.name} edits a ${target.name}`,
      )
      const lowest = roles.find((r) => r.name === 'consulta')!
      if (!allowed)
        t.equal(
          (
            await api.request(
              'PUT',
              `/usuarios/${(await api.request('POST', '/usuarios', { token: admin, body: { username: `w${n}`, password: 'password-matrix', nombre: 'W', rol: lowest.name } })).body.data._id}`,
              { token, body: { rol: target.name } },
            )
          ).status,
          403,
          `${actor.name} cannot lift a consulta to ${target.name}`,
        )
      t.equal(
        (await api.request('DELETE', path, { token })).status,
        allowed ? 200 : 403,
        `${actor.name} deletes a ${target.name}`,
      )
    }
  }
})

t.test('D7, D21: mass assignment of metadata and of account fields is ignored or refused', async (t) => {
  const api = await startTestApi(t)
  const admin = await api.adminToken()
  const agente = await api.userWithRole('agente')
  const meta = {
    _id: 'DEN-1999-00001',
    _created: '1999-01-01 00:00:00',
    _created_by: 'USR-1999-00001',
    _modified_by: 'USR-1999-00001',
    _version: 77,
    _hash: 'f'.repeat(64),
    _deleted: '1999-01-01 00:00:00',
    _row: 1,
  }
  const created = await api.request('POST', '/denuncias', {
    token: agente.token,
    body: { ...VALID['denuncias']!(), ...meta },
  })
  t.equal(created.status, 201)
  t.match(created.body.data, { _created_by: agente.id, _modified_by: agente.id, _version: 1 })
  t.not(created.body.data._id, meta._id)
  t.not(created.body.data._hash, meta._hash)
  t.notOk('_deleted' in created.body.data, 'not created deleted')
  const updated = await api.request('PUT', `/denuncias/${created.body.data._id}`, {
    token: admin,
    body: { ...meta, descripcion: 'nueva' },
  })
  t.match(updated.body.data, { _id: created.body.data._id, _version: 2, _created: created.body.data._created })
  t.equal(
    (await api.request('GET', `/denuncias/${created.body.data._id}`, { token: admin })).status,
    200,
    '_deleted sent by a client deletes nothing',
  )
  // An agente may not touch accounts at all, not even its own: no self-promotion, no self-enable.
  for (const body of [{ rol: 'superadmin' }, { activo: true }, { password: 'nueva-password-1' }])
    assertError(
      t,
      await api.request('PUT', `/usuarios/${agente.id}`, { token: agente.token, body }),
      403,
      'Sin permisos para esta operación',
      JSON.stringify(body),
    )
})

// Brute force on one username: test/integration/auth/login-protection.test.ts.

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number

t.test('D19: login takes as long for an unknown user as for a known one', async (t) => {
  productionBcryptCost(t) // the dummy hash costs what a stored one does at cost 10
  const api = await startTestApi(t, { env: { LOGIN_MAX_FAILURES: '100000' } })
  const disabled = await api.userWithRole('consulta')
  await api.request('PUT', `/usuarios/${disabled.id}`, { token: await api.adminToken(), body: { activo: false } })
  const cases = {
    unknown: ['nadie-conocido', 'x-password-1'],
    wrongPassword: [ADMIN.username, 'x-password-1'],
    disabled: ['consulta_1', 'password-consulta-1'],
  }
  const times: Record<string, number[]> = { unknown: [], wrongPassword: [], disabled: [] }
  const rounds = 15
  for (let i = 0; i < rounds; i += 1) {
    // Interleaved, so machine load falls on every case alike.
    for (const [name, [username, password]] of Object.entries(cases)) {
      const start = process.hrtime.bigint()
      const reply = await api.request('POST', '/auth/login', { body: { username, password } })
      times[name]!.push(Number(process.hrtime.bigint() - start) / 1e6)
      if (reply.status !== 401) t.fail(`${name}: ${reply.status}`)
    }
  }
  const medians = Object.fromEntries(Object.entries(times).map(([name, list]) => [name, median(list)]))
  const ratio = Math.max(...Object.values(medians)) / Math.min(...Object.values(medians))
  // A skipped bcrypt compare answers ~20x faster; 2x tolerates a busy shared 2-core machine.
  t.ok(ratio < 2, `median ms ${JSON.stringify(medians)}, ratio ${ratio.toFixed(2)} < 2`)
})
