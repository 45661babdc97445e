// D42: a user enrols a TOTP authenticator under /me/segundo-factor, confirms it with a code
// (and receives ten single-use recovery codes, once), lists it without secrets and removes it
// with a current code. Secrets are encrypted at rest, codes stored hashed, nothing of either is
// logged, and every enrolment and removal is an audit entry.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { TOTP, URI } from 'otpauth'
import t from 'tap'
import { keyIdOf } from '../../../src/db/crypto.js'
import { rotateEncryption } from '../../../src/db/keys/rotation.js'
import { keyUsage } from '../../../src/db/keys/usage.js'
import { startTestApi, type TestApi } from '../../helpers/api.js'
import { auditRows, captureLogs, newKey } from '../protection/support.js'
import { assertError } from './envelope.js'
import { controlledClock, enrolTotp, totpCode } from './totp-support.js'

const actionsOf = async (api: TestApi, recordId: string) =>
  (await auditRows(api)).filter((r) => r['record_id'] === recordId).map((r) => r['action'])

t.test('D42: TOTP enrolment, confirmation, listing and removal', async (t) => {
  const { clock, advance } = controlledClock()
  const logs = captureLogs()
  const api = await startTestApi(t, { clock, logger: { level: 'debug', stream: logs.stream } })
  const user = await api.userWithRole('agente')
  const { token } = user

  const started = await api.request('POST', '/me/segundo-factor/totp', { token })
  t.equal(started.status, 201, 'an enrolment starts')
  const secret = started.body.data.secreto as string
  t.match(secret, /^[A-Z2-7]{32}$/, 'a base32 secret of 160 bits')
  const uri = URI.parse(started.body.data.uri) as TOTP
  t.ok(uri instanceof TOTP, 'an otpauth://totp URI')
  t.equal(uri.issuer, 'municipal-records', 'the issuer names the service')
  t.equal(uri.label, user.username, 'the label is the username')
  t.same([uri.algorithm, uri.digits, uri.period, uri.secret.base32], ['SHA1', 6, 30, secret], 'RFC 6238 defaults')

  const stored = await sql<Record<string, unknown>>`select * from _second_factors`.execute(api.service.database.db)
  t.equal(stored.rows.length, 1)
  t.match(String(stored.rows[0]?.['secret']), /^v1\./, 'D14: the secret is encrypted at rest')
  t.notOk(JSON.stringify(stored.rows).includes(secret), 'nothing of the secret in clear')

  const pending = await api.request('GET', '/me/segundo-factor', { token })
  t.same(pending.body.data, { factores: [], recuperacion_restantes: 0 }, 'a pending enrolment is no factor yet')

  assertError(
    t,
    await api.request('POST', '/me/segundo-factor/totp/confirmar', { token, body: { codigo: '000000' } }),
    400,
    /Datos inválidos/,
    'a wrong code does not confirm',
  )
  assertError(
    t,
    await api.request('POST', '/me/segundo-factor/totp/confirmar', { token, body: {} }),
    400,
    'Datos requeridos',
  )
  assertError(
    t,
    await api.request('POST', '/me/segundo-factor/totp/confirmar', { token, body: { codigo: '1', otro: 1 } }),
    400,
    /Datos inválidos/,
    'an unknown field is refused',
  )
  const confirmed = await api.request('POST', '/me/segundo-factor/totp/confirmar', {
    token,
    body: { codigo: totpCode(secret, clock()) },
  })
  t.equal(confirmed.status, 200, 'a current code confirms')
  const codes = confirmed.body.data.recuperacion as string[]
  t.equal(codes.length, 10, 'ten recovery codes')
  t.equal(new Set(codes).size, 10, 'all different')
  const hashes = await sql<Record<string, unknown>>`select * from _recovery_codes`.execute(api.service.database.db)
  t.equal(hashes.rows.length, 10)
  t.notOk(
    codes.some((c) => JSON.stringify(hashes.rows).includes(c)),
    'recovery codes are stored hashed, never in clear',
  )

  const listed = await api.request('GET', '/me/segundo-factor', { token })
  t.equal(listed.status, 200)
  t.match(listed.body.data, { factores: [{ tipo: 'totp', id: String }], recuperacion_restantes: 10 })
  t.notOk(JSON.stringify(listed.body).includes(secret), 'the list holds no secret')
  const factorId = listed.body.data.factores[0].id as string

  assertError(t, await api.request('POST', '/me/segundo-factor/totp', { token }), 409, /TOTP confirmado/)
  assertError(
    t,
    await api.request('POST', '/me/segundo-factor/totp/confirmar', { token, body: { codigo: '123456' } }),
    409,
    /No hay un alta de TOTP pendiente/,
  )

  // Removal needs a current code; the confirming code was spent, so the next step's code is used.
  assertError(
    t,
    await api.request('DELETE', `/me/segundo-factor/${factorId}`, { token }),
    400,
    'Datos requeridos',
    'removal without a code',
  )
  assertError(
    t,
    await api.request('DELETE', `/me/segundo-factor/${factorId}`, { token, body: { codigo: '000000' } }),
    400,
    /Datos inválidos/,
    'removal with a wrong code',
  )
  assertError(
    t,
    await api.request('DELETE', '/me/segundo-factor/otro', { token, body: { codigo: totpCode(secret, clock()) } }),
    404,
    'Registro no encontrado',
  )
  const other = await api.userWithRole('agente')
  assertError(
    t,
    await api.request('DELETE', `/me/segundo-factor/${factorId}`, {
      token: other.token,
      body: { codigo: totpCode(secret, clock()) },
    }),
    404,
    'Registro no encontrado',
    "another user's factor is not theirs to remove",
  )
  advance(30)
  const removed = await api.request('DELETE', `/me/segundo-factor/${factorId}`, {
    token,
    body: { codigo: totpCode(secret, clock()) },
  })
  t.equal(removed.status, 200, 'removed with a current code')
  t.same((await api.request('GET', '/me/segundo-factor', { token })).body.data, {
    factores: [],
    recuperacion_restantes: 0,
  })
  const left = await sql<Record<string, unknown>>`select * from _recovery_codes`.execute(api.service.database.db)
  t.equal(left.rows.length, 0, 'the last factor takes its recovery codes with it')

  t.same(
    (await actionsOf(api, user.id)).filter((a) => String(a).startsWith('segundo_factor')),
    ['segundo_factor_alta', 'segundo_factor_fallido', 'segundo_factor_baja'],
    'enrolment, the wrong code and removal are audit entries',
  )
  const logged = logs.text()
  t.notOk(logged.includes(secret), 'no secret in the logs')
  t.notOk(
    codes.some((c) => logged.includes(c)),
    'no recovery code in the logs',
  )
})

t.test('D42: the routes need a token', async (t) => {
  const api = await startTestApi(t)
  assertError(t, await api.request('GET', '/me/segundo-factor'), 401, 'Token no proporcionado')
  assertError(t, await api.request('POST', '/me/segundo-factor/totp'), 401, 'Token no proporcionado')
})

t.test('D42, D14: key rotation re-encrypts TOTP secrets; the new key alone still verifies codes', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-2fa-rotation-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const { clock, advance } = controlledClock()
  const [oldKey, newOne] = [newKey(), newKey()]
  const [oldId, newId] = [keyIdOf(Buffer.from(oldKey, 'base64')), keyIdOf(Buffer.from(newOne, 'base64'))]
  const first = await startTestApi(t, { dataDir, clock, env: { RECORDS_ENCRYPTION_KEY: oldKey } })
  const user = await first.userWithRole('agente')
  const { secret } = await enrolTotp(first, user.token, clock())
  t.equal((await keyUsage(first.service.database, first.service.spec)).get(oldId), 1, 'keys status counts it')
  await first.service.close()

  const second = await startTestApi(t, {
    dataDir,
    clock,
    env: { RECORDS_ENCRYPTION_KEY: newOne, RECORDS_ENCRYPTION_OLD_KEYS: oldKey },
  })
  const { service } = second
  const result = await rotateEncryption({
    database: service.database,
    spec: service.spec,
    codec: service.codec,
    recordKeys: service.recordKeys,
    factors: service.factors,
    changes: service.changes,
    activeKeyId: service.keys.targetId,
    timezone: service.spec.service.timezone,
    clock,
  })
  t.equal(result.secrets, 1, 'the secret is re-encrypted')
  const usage = await keyUsage(service.database, service.spec)
  t.same([usage.get(oldId), usage.get(newId)], [undefined, 1])
  await service.close()

  const only = await startTestApi(t, { dataDir, clock, env: { RECORDS_ENCRYPTION_KEY: newOne } })
  advance(30)
  const login = await only.request('POST', '/auth/login', {
    body: { username: user.username, password: user.password, codigo: totpCode(secret, clock()) },
  })
  t.equal(login.status, 200, 'the new key alone reads the secret')
})
