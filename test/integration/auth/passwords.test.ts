// Passwords and sessions: the policy, the 72 bytes bcrypt reads, POST
// /me/password, and a password change, disable or re-enable ending every earlier token on
// every instance that shares the database.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { startTestApi } from '../../helpers/api.js'
import { assertError } from './envelope.js'

const INVALID = 'Token inválido o expirado'
const account = (username: string, password: string, rol = 'consulta') => ({
  username,
  password,
  nombre: 'Persona de prueba',
  rol,
})

t.test('the password policy refuses short, common, repetitive and username-based passwords', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const refused = async (body: Record<string, unknown>, message: RegExp, label: string) => {
    const reply = await api.request('POST', '/usuarios', { token, body })
    assertError(t, reply, 400, /^Datos inválidos/, label)
    t.match(reply.body.details, [{ field: 'password', message }], `${label}: the detail says why, in Spanish`)
    t.notOk(
      JSON.stringify(reply.body).includes(String(body['password'])),
      `${label}: the refusal never echoes the password`,
    )
  }
  await refused(account('corto', 'once-letras'), /al menos 12 caracteres/, '11 characters')
  await refused(
    account('jefa', 'catorce-letras', 'administrador'),
    /al menos 15 caracteres para un rol que gestiona cuentas/,
    '14 for an administrador',
  )
  await refused(account('comun', 'password12345678'), /demasiado común/, 'a common password with digits after it')
  await refused(account('comun2', 'QwertyUIOP2024!!'), /demasiado común/, 'a common password in another case')
  await refused(account('repite', 'aaaaaaaaaaaaaaaa'), /repetición ni una secuencia/, 'one character repeated')
  await refused(account('secuencia', '123456789012345'), /repetición ni una secuencia|demasiado común/, 'a sequence')
  await refused(
    account('mgomez', 'soy-MGomez-de-guardia'),
    /no puede contener el nombre de usuario/,
    'the username inside',
  )
  t.equal(
    (await api.request('POST', '/usuarios', { token, body: account('lperez', 'guardia-de-tarde-7') })).status,
    201,
    'a long, uncommon one passes',
  )
  const strict = await api.request('POST', '/usuarios', {
    token,
    body: account('jefe2', 'relevo-de-guardia-9', 'administrador'),
  })
  t.equal(strict.status, 201, '15 or more passes for an administrador')
  const update = await api.request('PUT', `/usuarios/${strict.body.data._id as string}`, {
    token,
    body: { password: 'corto-de-más' },
  })
  assertError(t, update, 400, /^Datos inválidos/, 'the policy applies on update too')
})

t.test('bcrypt reads 72 bytes, so a longer password is refused and never matches', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  // 24 groups of a two-byte ñ and a one-byte letter: 72 bytes in 48 characters.
  const password = Array.from({ length: 24 }, (_, i) => `ñ${String.fromCharCode(97 + i)}`).join('')
  t.equal(Buffer.byteLength(password), 72, 'the password is exactly 72 bytes')
  t.equal((await api.request('POST', '/usuarios', { token, body: account('bytes', password) })).status, 201)
  t.equal((await api.request('POST', '/auth/login', { body: { username: 'bytes', password } })).status, 200)
  const sameFirst72 = await api.request('POST', '/auth/login', {
    body: { username: 'bytes', password: `${password}ñ-otra-cosa` },
  })
  assertError(t, sameFirst72, 401, 'Credenciales inválidas', 'a different password with the same first 72 bytes')
  const tooLong = await api.request('POST', '/usuarios', { token, body: account('largo', `${password}x`) })
  assertError(t, tooLong, 400, /^Datos inválidos/, '73 bytes')
  t.match(tooLong.body.details, [{ field: 'password', message: /como máximo 72 bytes/ }])
})

t.test("POST /me/password changes the caller's password and ends every earlier token", async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-passwords-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const a = await startTestApi(t, { dataDir })
  const b = await startTestApi(t, { dataDir })
  const user = await a.userWithRole('agente')
  const other = await b.login(user.username, user.password)
  t.equal((await b.request('GET', '/me', { token: other })).status, 200, 'b serves (and caches) a second session')
  const change = (token: string, body: unknown) => a.request('POST', '/me/password', { token, body })

  assertError(t, await change(user.token, {}), 400, 'Datos requeridos', 'both fields are required')
  const wrong = await change(user.token, { password_actual: 'no-es-la-mia-123', password_nueva: 'cambio-de-turno-42' })
  assertError(t, wrong, 400, /^Datos inválidos/, 'a wrong current password')
  t.match(wrong.body.details, [{ field: 'password_actual' }])
  const weak = await change(user.token, { password_actual: user.password, password_nueva: 'abcdefghijklm' })
  t.match(weak.body.details, [{ field: 'password_nueva', message: /secuencia/ }], 'the new password meets the policy')
  const extra = await change(user.token, {
    password_actual: user.password,
    password_nueva: 'cambio-de-turno-42',
    rol: 'superadmin',
  })
  assertError(t, extra, 400, /^Datos inválidos/, 'nothing else is accepted')
  t.equal((await b.request('GET', '/me', { token: other })).status, 200, 'refusals end no session')

  const ok = await change(user.token, { password_actual: user.password, password_nueva: 'cambio-de-turno-42' })
  t.equal(ok.status, 200)
  t.equal(ok.body.data.message, 'Contraseña cambiada')
  assertError(
    t,
    await a.request('GET', '/me', { token: user.token }),
    401,
    INVALID,
    'the token that changed it has ended',
  )
  assertError(
    t,
    await b.request('GET', '/me', { token: other }),
    401,
    INVALID,
    'another session, on another instance, has ended',
  )
  t.equal(
    (await b.request('GET', '/me', { token: ok.body.data.token })).status,
    200,
    'the token in the answer works everywhere',
  )
  t.equal(
    (await a.request('POST', '/auth/login', { body: { username: user.username, password: user.password } })).status,
    401,
  )
  t.equal(
    (await a.request('POST', '/auth/login', { body: { username: user.username, password: 'cambio-de-turno-42' } }))
      .status,
    200,
  )
  const audit = await a.request('GET', `/auditoria?registro=${user.id}&accion=editar`, { token: await a.adminToken() })
  t.match(audit.body.data.entries, [{ user_id: user.id, fields: ['password'] }], 'audited as an edit by the user')
})

t.test("an administrator's password change ends the account's tokens; other accounts keep theirs", async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-passwords-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const a = await startTestApi(t, { dataDir })
  const b = await startTestApi(t, { dataDir })
  const admin = await a.adminToken()
  const user = await a.userWithRole('oficial')
  const bystander = await a.userWithRole('oficial')
  t.equal((await b.request('GET', '/me', { token: user.token })).status, 200)
  t.equal(
    (await a.request('PUT', `/usuarios/${user.id}`, { token: admin, body: { password: 'nueva-clave-del-jefe-5' } }))
      .status,
    200,
  )
  assertError(
    t,
    await b.request('GET', '/me', { token: user.token }),
    401,
    INVALID,
    'b refuses the earlier token at once',
  )
  t.equal((await b.request('GET', '/me', { token: bystander.token })).status, 200, 'another account is untouched')
  t.equal(
    (await a.request('PUT', `/usuarios/${bystander.id}`, { token: admin, body: { nombre: 'Otro nombre' } })).status,
    200,
  )
  t.equal(
    (await b.request('GET', '/me', { token: bystander.token })).status,
    200,
    'an edit that changes no password ends nothing',
  )
})

t.test('a first start whose ADMIN_PASSWORD breaks the policy is refused as a setting, saying why', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-weak-admin-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  await t.rejects(startTestApi(t, { dataDir, env: { ADMIN_PASSWORD: 'corta' } }), {
    name: 'OperatorError',
    code: 'SETTING_INVALID',
    message: /^ADMIN_PASSWORD no cumple la política de contraseñas: .+/,
  })
})
