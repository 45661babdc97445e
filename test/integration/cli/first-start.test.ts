// The first start as a police IT team meets it: under systemd or in a container (no terminal)
// the generated password goes to a 0600 file and never into the log; a refused start leaves no
// secret behind; a start refused for data loss names the command that applies it.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { REPO_MODULES } from '../../helpers/api.js'
import { startServerProcess } from '../../helpers/server-process.js'
import { api, createCli, type Cli } from './support.js'

/** `records serve` with stdout piped (no terminal), as systemd runs it. */
const startPiped = (t: Test, cli: Cli, env: Record<string, string> = {}) =>
  startServerProcess(t, { entry: 'dist', cwd: cli.dataDir, env: { ...cli.env, ...env } })

const post = async (url: string, body: unknown, token?: string) => {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(body),
  })
  return { status: response.status, body: (await response.json()) as { data?: { token?: string } } }
}

const SECRET_FILES = ['jwt-secret', 'encryption.key']
const NEW_PASSWORD = 'relevo-de-guardia-2026'

t.test('without a terminal the first password goes to DATA_DIR/admin-password (0600), never to the log', async (t) => {
  const cli = createCli(t, { ADMIN_PASSWORD: '' })
  const file = join(cli.dataDir, 'admin-password')
  const server = await startPiped(t, cli)
  t.ok(existsSync(file), 'the file is written')
  t.equal(statSync(file).mode & 0o777, 0o600, 'readable by the service user only')
  const password = readFileSync(file, 'utf8').trim()
  t.ok(password.length >= 24, 'a generated password')
  t.notOk(server.output().includes(password), 'the log never holds the password')
  t.match(server.output(), `su contraseña está en ${file}`, 'the log names the file')
  t.notOk(
    readdirSync(cli.dataDir).some((name) => name.endsWith('.tmp')),
    'no temporary file left',
  )
  const login = await post(`${server.base}/auth/login`, { username: 'admin', password })
  t.equal(login.status, 200, 'the password in the file logs in')
  const token = login.body.data?.token ?? ''
  const change = await post(
    `${server.base}/me/password`,
    { password_actual: password, password_nueva: NEW_PASSWORD },
    token,
  )
  t.equal(change.status, 200)
  t.notOk(existsSync(file), 'the first password change removes the file')
  t.equal(await server.stop(), 0)
})

t.test('records user passwd removes admin-password too, and a later start removes a stale one', async (t) => {
  const cli = createCli(t, { ADMIN_PASSWORD: '' })
  const file = join(cli.dataDir, 'admin-password')
  const first = await startPiped(t, cli)
  const password = readFileSync(file, 'utf8').trim()
  t.equal(await first.stop(), 0)
  t.ok(existsSync(file), 'a restart before any change keeps it')
  const second = await startPiped(t, cli)
  t.ok(existsSync(file), 'still the password that logs in: kept')
  t.equal(await second.stop(), 0)
  const passwd = await cli.run(['user', 'passwd', 'admin', '--password-stdin'], { input: `${NEW_PASSWORD}\n` })
  t.equal(passwd.status, 0, passwd.stderr)
  t.notOk(existsSync(file), 'removed by records user passwd')
  // Changed elsewhere (another instance's DATA_DIR, say): the next start removes it.
  writeFileSync(file, `${password}\n`, { mode: 0o600 })
  const third = await startPiped(t, cli)
  t.notOk(existsSync(file), 'a start removes a file whose password no longer logs in')
  t.match(third.output(), 'la contraseña inicial ya se cambió')
  t.equal(await third.stop(), 0)
})

t.test(
  'a start refused by modules.yaml, a setting or its database leaves no generated secret in DATA_DIR',
  async (t) => {
    const cli = createCli(t)
    const file = join(cli.dataDir, 'modules.yaml')
    writeFileSync(file, readFileSync(REPO_MODULES, 'utf8').replace(/prefix: DEN\b/, 'prefix: den'))
    const refused = await cli.run(['serve'], { env: { MODULES_FILE: file, PORT: '0' } })
    t.equal(refused.status, 1)
    t.match(refused.stderr, /prefijo/)
    for (const name of SECRET_FILES) t.notOk(existsSync(join(cli.dataDir, name)), `${name} not left behind`)

    const badSetting = await cli.run(['serve'], { env: { PORT: 'tres mil' } })
    t.equal(badSetting.status, 1)
    t.match(badSetting.stderr, /PORT/)
    for (const name of SECRET_FILES) t.notOk(existsSync(join(cli.dataDir, name)), `${name} not left by a bad setting`)

    const unreachable = await cli.run(['serve'], { env: { DATABASE_URL: 'postgres://records@127.0.0.1:1/records' } })
    t.equal(unreachable.status, 1)
    for (const name of SECRET_FILES)
      t.notOk(existsSync(join(cli.dataDir, name)), `${name} not left by a database out of reach`)

    // A secret that was there before a refused start is never removed.
    writeFileSync(join(cli.dataDir, 'jwt-secret'), `${'x'.repeat(48)}\n`, { mode: 0o600 })
    t.equal((await cli.run(['serve'], { env: { MODULES_FILE: file, PORT: '0' } })).status, 1)
    t.ok(existsSync(join(cli.dataDir, 'jwt-secret')), 'an existing secret stays')
    t.notOk(existsSync(join(cli.dataDir, 'encryption.key')), 'the key this start generated goes')

    writeFileSync(file, readFileSync(REPO_MODULES, 'utf8'))
    const server = await startPiped(t, cli, { MODULES_FILE: file })
    t.equal((await fetch(`${server.base}/health`)).status, 200, 'a valid modules.yaml then starts')
    t.ok(existsSync(join(cli.dataDir, 'encryption.key')), 'and keeps its secrets')
    t.equal(await server.stop(), 0)
  },
)

t.test('a start refused for data loss names records migrate --allow-data-loss', async (t) => {
  const cli = createCli(t)
  t.equal((await cli.run(['migrate'])).status, 0)
  const file = join(cli.dataDir, 'modules.yaml')
  writeFileSync(file, readFileSync(REPO_MODULES, 'utf8').replace('      marca: { type: string }\n', ''))
  const empty = await cli.run(['serve'], { env: { MODULES_FILE: file, PORT: '0' } })
  t.equal(empty.status, 1)
  t.match(empty.stderr, 'aplíquelos con `records migrate`', 'no data to lose: the plain command')
  t.notMatch(empty.stderr, '--allow-data-loss')

  await cli.withService(async (service, token) => {
    const created = await api(service, token, 'POST', '/vehiculos', {
      matricula: '1234-BCD',
      tipo: 'patrulla',
      marca: 'Seat',
    })
    t.equal(created.status, 201)
  })
  const refused = await cli.run(['serve'], { env: { MODULES_FILE: file, PORT: '0' } })
  t.equal(refused.status, 1)
  t.match(refused.stderr, 'aplíquelos con `records migrate --allow-data-loss` (1 registros afectados')
  t.match(refused.stderr, "Quitar el campo 'vehiculos.marca': 1 registros afectados")
})
