// `records copy`: an embedded installation moved to PostgreSQL (to another SQLite file when no
// PostgreSQL answers, said loudly) verifies clean with `records audit verify` on the target.
import { join } from 'node:path'
import { Secret, TOTP } from 'otpauth'
import t from 'tap'
import { createTestDatabase, requirePostgres, urlOf } from '../../helpers/postgres.js'
import { api, createCli, noStack } from './support.js'

const reachable = await requirePostgres(t, 'records copy is tested SQLite -> SQLite only')

t.test('copy moves everything; audit verify holds on the target; a non-empty target is refused', async (t) => {
  const cli = createCli(t)
  const ids = await cli.withService(async (service, token) => {
    const person = await api(service, token, 'POST', '/personal', {
      tip: 'T1',
      nombre: 'Ana',
      apellidos: 'Ruiz',
      escala: 'oficial',
      nif: '33333333C',
    })
    t.equal(person.status, 201)
    const gone = await api(service, token, 'POST', '/personal', {
      tip: 'T2',
      nombre: 'Luis',
      apellidos: 'Gil',
      escala: 'inspector',
      nif: '44444444D',
    })
    t.equal((await api(service, token, 'DELETE', `/personal/${gone.body.data._id as string}`)).status, 200)
    // D42: a second factor and its recovery codes travel too.
    const agente = { username: 'lucia', password: 'ronda-de-barrio-31', nombre: 'Lucía', rol: 'agente' }
    t.equal((await api(service, token, 'POST', '/usuarios', agente)).status, 201)
    const login = await service.app.inject({ method: 'POST', url: '/api/auth/login', payload: agente })
    const mine = login.json().data.token as string
    const secret = (await api(service, mine, 'POST', '/me/segundo-factor/totp')).body.data.secreto as string
    const codigo = new TOTP({ secret: Secret.fromBase32(secret) }).generate()
    t.equal((await api(service, mine, 'POST', '/me/segundo-factor/totp/confirmar', { codigo })).status, 200)
    return { person: person.body.data._id as string }
  })
  const from = `sqlite:${join(cli.dataDir, 'records.db')}`
  const to = reachable ? urlOf(await createTestDatabase()) : `sqlite:${join(cli.dataDir, 'copia.db')}`

  const run = await cli.run(['copy', '--from', from, '--to', to, '--json'])
  t.equal(run.status, 0, run.stderr)
  const report = JSON.parse(run.stdout)
  t.equal(report.tables['personal'], 2, 'the deleted record travels too')
  t.ok(report.tables['_audit'] > 0)
  t.same([report.tables['_second_factors'], report.tables['_recovery_codes']], [1, 10], 'D42: the factors travel')
  t.notMatch(run.stdout, /:[^:@/]+@/, 'no password of a URL is printed')

  const verify = await cli.run(['audit', 'verify', '--json'], { env: { DATABASE_URL: to } })
  t.equal(verify.status, 0, verify.stdout + verify.stderr)
  const source = JSON.parse((await cli.run(['audit', 'verify', '--json'])).stdout)
  t.same(JSON.parse(verify.stdout).head, source.head, 'the same chain head on both')

  const again = await cli.run(['copy', '--from', from, '--to', to])
  t.equal(again.status, 1)
  t.match(again.stderr, /^records: .*no está vacía/)
  t.ok(noStack(again))

  const read = await cli.withService(
    async (service, token) => (await api(service, token, 'GET', `/personal/${ids.person}`)).body.data,
  )
  t.match(read, { nombre: 'Ana', nif: '33333333C' }, 'the source still serves its data')
})

t.test('usage: both URLs, distinct, an existing source', async (t) => {
  const cli = createCli(t)
  t.equal((await cli.run(['copy', '--from', 'sqlite:a.db'])).status, 2)
  const same = await cli.run(['copy', '--from', 'sqlite:a.db', '--to', 'sqlite:a.db'])
  t.equal(same.status, 1)
  t.match(same.stderr, /misma base de datos/)
  const missing = await cli.run([
    'copy',
    '--from',
    `sqlite:${join(cli.dataDir, 'nada.db')}`,
    '--to',
    `sqlite:${join(cli.dataDir, 'b.db')}`,
  ])
  t.equal(missing.status, 1)
  t.match(missing.stderr, /No existe la base de datos de origen/)
})
