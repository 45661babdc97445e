// `records user ...` messages a first day trips over: a mistyped --role names the closest role,
// and `user rename` prints the name the account now has (its canonical form), not the old one.
import t from 'tap'
import { createCli, noStack } from './support.js'

t.test('a mistyped role is refused with the roles and the closest one, on add and on role', async (t) => {
  const cli = createCli(t)
  const add = await cli.run(
    ['user', 'add', 'jgarcia', '--role', 'adminstrador', '--field', 'nombre=Juana', '--password-stdin'],
    { input: 'clave-secreta-larga-1\n' },
  )
  t.equal(add.status, 1, add.stderr)
  t.match(
    add.stderr,
    /El rol 'adminstrador' no existe \(roles: superadmin, administrador, [^)]*\)\. ¿Quería decir 'administrador'\?/,
  )
  t.ok(noStack(add))
  const created = await cli.run(
    ['user', 'add', 'jgarcia', '--role', 'administrador', '--field', 'nombre=Juana', '--password-stdin'],
    { input: 'clave-secreta-larga-1\n' },
  )
  t.equal(created.status, 0, created.stderr)
  const role = await cli.run(['user', 'role', 'jgarcia', 'agnete'])
  t.equal(role.status, 1, role.stderr)
  t.match(role.stderr, /El rol 'agnete' no existe .*¿Quería decir 'agente'\?/)
  t.match(JSON.parse((await cli.run(['user', 'list', '--json'])).stdout), [{ role: 'administrador' }], 'unchanged')
})

t.test('user rename prints the new username, in the canonical form it is stored in', async (t) => {
  const cli = createCli(t)
  const add = await cli.run(['user', 'add', 'ana', '--role', 'agente', '--field', 'nombre=Ana', '--password-stdin'], {
    input: 'clave-secreta-larga-2\n',
  })
  t.equal(add.status, 0, add.stderr)
  const renamed = await cli.run(['user', 'rename', 'ana', 'Ana.Garcia'])
  t.equal(renamed.status, 0, renamed.stderr)
  t.match(renamed.stdout, /^Usuario cambiado: 'ana' ahora es 'ana\.garcia' \(USR-\d{4}-\d{5}\)\n$/)
  t.match(JSON.parse((await cli.run(['user', 'list', '--json'])).stdout), [{ username: 'ana.garcia' }])
})
