// `records import usuarios` applies the account rules of the API: the password
// policy refuses a common password, and a username is stored in its canonical form, so an import
// cannot bring in the weak passwords or look-alike accounts the API refuses.
import t from 'tap'
import { api, createCli } from './support.js'

const account = (username: string, password: string) =>
  JSON.stringify({ username, password, nombre: `Cuenta ${username}`, rol: 'agente' })

t.test('an imported account meets the password policy and gets a canonical username', async (t) => {
  const cli = createCli(t)
  const lines = [account('Nuevo.Agente ', 'clave-de-importacion-7'), account('otro', 'password1')].join('\n')
  const refused = await cli.run(['import', 'usuarios', '-', '--format', 'jsonl'], { input: lines })
  t.equal(refused.status, 1, 'a row with a common password refuses the import')
  t.match(refused.stdout, /línea 2/)
  const run = await cli.run(['import', 'usuarios', '-', '--format', 'jsonl', '--skip-invalid'], { input: lines })
  t.equal(run.status, 0, run.stderr)
  await cli.withService(async (service) => {
    const login = await api(service, '', 'POST', '/auth/login', {
      username: 'NUEVO.AGENTE',
      password: 'clave-de-importacion-7',
    })
    t.equal(login.status, 200, 'the imported account logs in under any spelling of its name')
    const list = await api(service, login.body.data.token as string, 'GET', '/me')
    t.equal(list.body.data.username, 'nuevo.agente', 'stored trimmed and in lower case')
  })
})
