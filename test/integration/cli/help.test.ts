// Every subcommand answers --help; usage errors exit 2 with one line, never a stack.
import { readFileSync } from 'node:fs'
import t from 'tap'
import { createCli, noStack } from './support.js'

const COMMANDS = [
  'audit verify',
  'audit export',
  'audit checkpoint',
  'demo',
  'export',
  'import',
  'keys generate',
  'keys rotate',
  'keys status',
  'keys retire',
  'migrate',
  'package',
  'package verify',
  'restore',
  'retention plan',
  'retention run',
  'retention acta',
  'serve',
  'user add',
  'user disable',
  'user enable',
  'user list',
  'user passwd',
  'user role',
  'validate',
]

t.test('records --help lists every subcommand with its summary', async (t) => {
  const cli = createCli(t)
  // The installed command, whose registry lists dist/'s compiled files (the sources' elsewhere).
  const run = await cli.spawn(['--help'])
  t.equal(run.status, 0)
  for (const name of COMMANDS) t.match(run.stdout, new RegExp(`\\n  ${name} +\\S`), name)
  t.equal((await cli.run([])).status, 2, 'no subcommand is a usage error')
})

t.test('each subcommand has its own --help', async (t) => {
  const cli = createCli(t)
  for (const name of COMMANDS) {
    const run = await cli.run([...name.split(' '), '--help'])
    t.equal(run.status, 0, name)
    t.match(run.stdout, `Uso: records ${name.split(' ')[0]}`, name)
  }
})

t.test('usage errors exit 2 with a one-line reason', async (t) => {
  const cli = createCli(t)
  const unknown = await cli.run(['frobnicate'])
  t.equal(unknown.status, 2)
  t.equal(unknown.stderr, "records: Orden desconocida 'frobnicate'. Vea records --help\n")
  const option = await cli.run(['migrate', '--bogus'])
  t.equal(option.status, 2)
  t.equal(option.stderr, "records: Opción desconocida '--bogus'. Vea records migrate --help\n")
  const args = await cli.run(['user', 'role', 'solo-uno'])
  t.equal(args.status, 2)
  t.match(args.stderr, /Número de argumentos incorrecto/)
  const failure = await cli.run(['audit', 'verify'], { env: { MODULES_FILE: '/nonexistent/modules.yaml' } })
  t.equal(failure.status, 1)
  t.match(
    failure.stderr,
    /^records: \/nonexistent\/modules\.yaml:1:1: No se puede cargar la definición de módulos: el fichero no existe\n$/,
  )
  for (const run of [unknown, option, args, failure]) t.ok(noStack(run))
})

t.test('records --version prints the package version without loading any subcommand', async (t) => {
  const cli = createCli(t)
  const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
    version: string
  }
  const run = await cli.spawn(['--version']) // dist/ finds package.json one folder further up
  t.equal(run.status, 0)
  t.equal(run.stdout, `records ${version}\n`)
  t.equal((await cli.run(['-v'])).stdout, `records ${version}\n`)
})
