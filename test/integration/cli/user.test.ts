// `records user ...`: accounts without the API, with its validation, hashes (D22) and audit
// chain (D18); passwords only from a terminal or --password-stdin, never argv.
import { Secret, TOTP } from 'otpauth'
import t from 'tap'
import { api, createCli, noStack } from './support.js'

t.test('the first superadmin and the life of an account, all audited', async (t) => {
  const cli = createCli(t)
  const add = await cli.spawn(
    ['user', 'add', 'jgarcia', '--role', 'superadmin', '--field', 'nombre=Juana García', '--password-stdin'],
    // Without the suite's lower cost (test/setup/register.mjs), as every real start runs: a process.
    { input: 'clave-secreta-1\n', env: { RECORDS_TEST_BCRYPT_ROUNDS: '' } },
  )
  t.equal(add.status, 0, add.stderr)
  t.match(add.stdout, /^Cuenta creada: 'jgarcia' \(USR-\d{4}-00001\) con el rol 'superadmin'\n$/)
  const hash = cli.raw((db) => db.prepare("select password from usuarios where username = 'jgarcia'").get()) as {
    password: string
  }
  t.match(hash.password, /^\$2[aby]\$10\$/, 'the password is stored as a bcrypt hash of cost 10 (D22)')
  t.notMatch(hash.password, /clave-secreta-1/)

  const list = JSON.parse((await cli.run(['user', 'list', '--json'])).stdout)
  t.match(list, [{ username: 'jgarcia', role: 'superadmin', active: true, profile: { nombre: 'Juana García' } }])
  t.equal(list.length, 1, 'the CLI created the first account: no initial admin is generated')

  const login = (password: string) =>
    cli.withService(
      async (service) =>
        (
          await service.app.inject({
            method: 'POST',
            url: '/api/auth/login',
            payload: { username: 'jgarcia', password },
          })
        ).statusCode,
    )
  t.equal(await login('clave-secreta-1'), 200, 'the account logs in through the API')

  t.equal(
    (await cli.run(['user', 'passwd', 'jgarcia', '--password-stdin'], { input: 'otra-clave-larga-2\n' })).status,
    0,
  )
  t.equal(await login('clave-secreta-1'), 401, 'the old password no longer works')
  t.equal(await login('otra-clave-larga-2'), 200)

  t.match((await cli.run(['user', 'disable', 'jgarcia'])).stdout, /Cuenta desactivada: 'jgarcia'/)
  t.equal(await login('otra-clave-larga-2'), 401, 'a disabled account cannot log in (D20)')
  t.match(JSON.parse((await cli.run(['user', 'list', '--json'])).stdout), [{ active: false }])
  t.equal((await cli.run(['user', 'enable', 'jgarcia'])).status, 0)
  t.equal(await login('otra-clave-larga-2'), 200)

  t.equal((await cli.run(['user', 'role', 'jgarcia', 'consulta'])).status, 0)
  t.match((await cli.run(['user', 'list'])).stdout, /USR-\d{4}-00001 {2}jgarcia {2}consulta {2}activa/)

  const trail = cli.raw((db) =>
    db.prepare("select action, user_id, fields from _audit where action in ('crear', 'editar') order by seq").all(),
  )
  t.match(
    trail,
    [
      { action: 'crear', user_id: /^cli:/ },
      { action: 'editar', fields: '["password"]' },
      { action: 'editar', fields: '["activo"]' },
      { action: 'editar', fields: '["activo"]' },
      { action: 'editar', fields: '["rol"]' },
    ],
    'every write is in the audit chain, in the name of the CLI user',
  )
  t.equal((await cli.run(['audit', 'verify'])).status, 0, 'and the chain verifies')
})

t.test("the API's validation and messages apply; no password from argv or without a terminal", async (t) => {
  const cli = createCli(t)
  const short = await cli.run(['user', 'add', 'ana', '--role', 'agente', '--field', 'nombre=Ana', '--password-stdin'], {
    input: 'corta\n',
  })
  t.equal(short.status, 1)
  t.equal(short.stderr, "records: Datos inválidos: El campo 'password' debe tener al menos 8 caracteres\n")
  const role = await cli.run(['user', 'add', 'ana', '--role', 'capitan', '--field', 'nombre=Ana', '--password-stdin'], {
    input: 'larga-clave-1\n',
  })
  t.match(role.stderr, /El rol 'capitan' no existe \(roles: superadmin, administrador/)
  const missing = await cli.run(['user', 'add', 'ana', '--role', 'agente', '--password-stdin'], {
    input: 'larga-clave-1\n',
  })
  t.match(missing.stderr, /Datos requeridos\n {2}- El campo 'nombre' es obligatorio/)
  const noTty = await cli.run(['user', 'add', 'ana', '--role', 'agente', '--field', 'nombre=Ana'])
  t.equal(noTty.stderr, 'records: No hay terminal para preguntar la contraseña: use --password-stdin\n')
  const argv = await cli.run(['user', 'add', 'ana', '--role', 'agente', '--password', 'x'])
  t.equal(argv.status, 2, 'there is no --password option')
  const nobody = await cli.run(['user', 'passwd', 'nadie', '--password-stdin'], { input: 'larga-clave-1\n' })
  t.equal(nobody.stderr, "records: No existe ninguna cuenta con el usuario 'nadie'\n")
  const emptyStdin = await cli.run(['user', 'passwd', 'nadie', '--password-stdin'])
  t.match(emptyStdin.stderr, /la entrada estándar no trae ninguna contraseña/)
  for (const run of [short, role, missing, noTty, nobody]) {
    t.equal(run.status, 1)
    t.ok(noStack(run))
  }
  t.same(JSON.parse((await cli.run(['user', 'list', '--json'])).stdout), [], 'nothing was created')
})

t.test('accounts created by the CLI work with the API next to those created by it', async (t) => {
  const cli = createCli(t)
  t.equal((await cli.run(['migrate'])).status, 0)
  await cli.withService(async (service, token) => {
    t.equal((await api(service, token, 'GET', '/usuarios')).body.data.total, 1, 'the initial admin of the service')
  })
  t.equal(
    (
      await cli.run(
        [
          'user',
          'add',
          'oficial1',
          '--role',
          'oficial',
          '--field',
          'nombre=Pedro',
          '--field',
          'email=p@example.org',
          '--password-stdin',
        ],
        { input: 'clave-oficial-1' },
      )
    ).status,
    0,
  )
  await cli.withService(async (service, token) => {
    t.match(await api(service, token, 'GET', '/usuarios?username=oficial1'), {
      body: { data: { total: 1, records: [{ rol: 'oficial', email: 'p@example.org' }] } },
    })
  })
})

t.test('a running service sees a CLI disable or role change at once (D20, despite the caches)', async (t) => {
  const cli = createCli(t)
  t.equal(
    (
      await cli.run(
        ['user', 'add', 'agente', '--role', 'superadmin', '--field', 'nombre=Agente Uno', '--password-stdin'],
        { input: 'relevo-de-guardia-9\n' },
      )
    ).status,
    0,
  )
  await cli.withService(async (service) => {
    const login = await service.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { username: 'agente', password: 'relevo-de-guardia-9' },
    })
    const token = login.json().data.token as string
    const list = async () => (await api(service, token, 'GET', '/denuncias')).status
    t.equal(await list(), 200)
    t.equal(await list(), 200, 'a second request, answered from the cached account state')
    t.equal((await cli.run(['user', 'role', 'agente', 'consulta'])).status, 0)
    t.equal(
      (await api(service, token, 'POST', '/denuncias', {})).status,
      403,
      'the new role applies to the next request',
    )
    t.equal((await cli.run(['user', 'disable', 'agente'])).status, 0)
    t.equal(await list(), 401, 'the token of a disabled account stops working at once')
  })
})

t.test("`records user passwd` ends the account's tokens in a running service; the policy applies", async (t) => {
  const cli = createCli(t)
  t.equal(
    (
      await cli.run(['user', 'add', 'mruiz', '--role', 'agente', '--field', 'nombre=Marta', '--password-stdin'], {
        input: 'guardia-de-tarde-7\n',
      })
    ).status,
    0,
  )
  const weak = await cli.run(['user', 'passwd', 'mruiz', '--password-stdin'], { input: 'password12345\n' })
  t.equal(weak.status, 1)
  t.match(weak.stderr, /Datos inválidos[\s\S]*demasiado común/, 'a common password is refused, with the reason')
  const renamed = await cli.run(
    ['user', 'add', 'MRuiz ', '--role', 'agente', '--field', 'nombre=Otra', '--password-stdin'],
    { input: 'guardia-de-tarde-7\n' },
  )
  t.equal(renamed.status, 1, 'a look-alike username is refused from the command line too')
  await cli.withService(async (service) => {
    const login = await service.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { username: 'mruiz', password: 'guardia-de-tarde-7' },
    })
    const token = login.json().data.token as string
    t.equal((await api(service, token, 'GET', '/me')).status, 200)
    t.equal(
      (await cli.run(['user', 'passwd', 'MRUIZ', '--password-stdin'], { input: 'cambio-de-turno-42\n' })).status,
      0,
    )
    t.equal((await api(service, token, 'GET', '/me')).status, 401, 'the earlier token stops working at once')
  })
})

t.test("the suite's lower bcrypt cost refuses a start outside the test runner", async (t) => {
  const cli = createCli(t)
  const outsideTests: Record<string, string>[] = [
    { TAP: '', RECORDS_TEST_BCRYPT_ROUNDS: '4' },
    { TAP: '1', NODE_ENV: 'production', RECORDS_TEST_BCRYPT_ROUNDS: '4' },
  ]
  for (const env of outsideTests) {
    const serve = await cli.spawn(['serve'], { env: { ...env, PORT: '0' } })
    t.not(serve.status, 0, `${JSON.stringify(env)}: serve refused`)
    t.match(serve.stderr, /RECORDS_TEST_BCRYPT_ROUNDS solo se admite al ejecutar las pruebas/)
    t.ok(noStack(serve), 'one line, no stack')
    const add = await cli.spawn(
      ['user', 'add', 'lcosta', '--role', 'superadmin', '--field', 'nombre=Luis Costa', '--password-stdin'],
      { input: 'clave-secreta-1\n', env },
    )
    t.not(add.status, 0, `${JSON.stringify(env)}: no account is written with it`)
    t.match(add.stderr, /RECORDS_TEST_BCRYPT_ROUNDS solo se admite/)
  }
  const accounts = cli.raw((db) =>
    db.prepare("select 1 from sqlite_master where name = 'usuarios'").get() === undefined
      ? 0
      : (db.prepare('select count(*) as n from usuarios').get() as { n: number }).n,
  )
  t.equal(accounts, 0, 'no account was written')
})

t.test('D42: `records user factor-reset` removes the factors and ends the tokens of a running service', async (t) => {
  const cli = createCli(t)
  await cli.withService(async (service, admin) => {
    const body = { username: 'lucia', password: 'ronda-de-barrio-31', nombre: 'Lucía', rol: 'agente' }
    t.equal((await api(service, admin, 'POST', '/usuarios', body)).status, 201)
    const login = async (codigo?: string) =>
      service.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { username: body.username, password: body.password, ...(codigo === undefined ? {} : { codigo }) },
      })
    const token = (await login()).json().data.token as string
    const secret = (await api(service, token, 'POST', '/me/segundo-factor/totp')).body.data.secreto as string
    const code = () =>
      new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate()
    t.equal((await api(service, token, 'POST', '/me/segundo-factor/totp/confirmar', { codigo: code() })).status, 200)
    t.equal((await login()).statusCode, 401, 'the factor is asked for')

    const reset = await cli.run(['user', 'factor-reset', 'lucia'])
    t.equal(reset.status, 0, reset.stderr)
    t.match(reset.stdout, /^Segundo factor restablecido: 'lucia' \(USR-\d{4}-\d{5}\); factores quitados: 1;/)
    t.equal((await api(service, token, 'GET', '/me')).status, 401, 'the running service ends its tokens at once')
    t.equal((await login()).statusCode, 200, 'the password alone logs in')
  })
  const trail = cli.raw((db) => db.prepare("select user_id from _audit where action = 'segundo_factor_reset'").all())
  t.match(trail, [{ user_id: /^cli:/ }], 'audited by the operator')
  const unknown = await cli.run(['user', 'factor-reset', 'nadie'])
  t.equal(unknown.status, 1)
})
