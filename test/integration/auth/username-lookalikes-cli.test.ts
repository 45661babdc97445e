// F8 from the command line: `records user add` and `rename` apply the API's username rule,
// and an account kept from before the rule is renamed by its id (its username may be hard to
// type). Runs bin/records.js from dist/ (`npm run build` first), on SQLite.
import t from 'tap'
import { api, createCli, noStack } from '../cli/support.js'

const PASSWORD = 'guardia-de-tarde-7\n'
const add = (username: string) => [
  'user',
  'add',
  username,
  '--role',
  'consulta',
  '--field',
  'nombre=Ana',
  '--password-stdin',
]

t.test('F8: records user add and rename refuse look-alikes; a kept account is renamed by id', async (t) => {
  const cli = createCli(t)
  t.equal((await cli.run(add('ana'), { input: PASSWORD })).status, 0)
  const cyrillic = await cli.run(add('\u0430na'), { input: PASSWORD })
  t.equal(cyrillic.status, 1, 'a Cyrillic а is refused')
  t.match(cyrillic.stderr, /Datos inválidos[\s\S]*El campo 'username' solo admite letras latinas[\s\S]*U\+0430/)
  t.ok(noStack(cyrillic))
  const fullWidth = await cli.run(add('\uff41\uff4e\uff41'), { input: PASSWORD })
  t.equal(fullWidth.status, 1, 'full-width letters are the same username')
  t.match(fullWidth.stderr, /Ya existe un registro con el mismo valor en 'username'/)
  const invisible = await cli.run(['user', 'rename', 'ana', 'a\u200bna\u00ad'])
  t.equal(invisible.status, 0, 'renaming to itself with invisible characters is the same name')

  const id = await cli.withService(async (service) => {
    // The record store takes any username: the shape of data written by an earlier version.
    const spec = service.spec.accounts.spec
    const old = await service.store.create(
      spec,
      { username: '\u0440epe', password: 'guardia-de-tarde-7', nombre: 'Pepe', rol: 'consulta' },
      { actor: 'sistema', reveal: false, user: null },
    )
    return String(old['_id'])
  })
  t.equal((await cli.run(['user', 'rename', id, 'p\u0435pe'])).status, 1, 'not to another look-alike')
  const renamed = await cli.run(['user', 'rename', id, 'pepe'])
  t.equal(renamed.status, 0, renamed.stderr)
  t.match(renamed.stdout, new RegExp(`Usuario cambiado: '${id}' ahora es 'pepe' \\(${id}\\)`))
  await cli.withService(async (service) => {
    const login = await service.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { username: 'pepe', password: 'guardia-de-tarde-7' },
    })
    t.equal(login.statusCode, 200, 'the renamed account logs in under its new name')
    const token = login.json().data.token as string
    t.equal((await api(service, token, 'GET', '/me')).body.data.username, 'pepe')
  })
})
