// `records validate` checks modules.yaml exactly as the server does.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { REPO_MODULES } from '../../helpers/api.js'
import { createCli, noStack, ROOT } from './support.js'

const INVALID = join(ROOT, 'test/fixtures/modules/invalid')
/** D42: the shipped roles that manage accounts require no second factor: a warning each. */
const ROLE_WARNINGS = (file: string) =>
  ['superadmin', 'administrador']
    .map(
      (role) =>
        `${file}: aviso: el rol '${role}' gestiona cuentas y no requiere segundo factor: ` +
        "añada 'segundo_factor: obligatorio' a su definición en roles (D42).\n",
    )
    .join('')

t.test('the shipped modules.yaml is valid: exit 0', async (t) => {
  const cli = createCli(t)
  const run = await cli.run(['validate'])
  t.equal(run.status, 0)
  t.equal(run.stdout, `${ROLE_WARNINGS(REPO_MODULES)}${REPO_MODULES}: válido (9 módulos, 7 roles, 2 avisos)\n`)
  const json = await cli.run(['validate', REPO_MODULES, '--json'])
  t.match(JSON.parse(json.stdout), {
    valid: true,
    problems: [],
    modules: [
      'denuncias',
      'sanciones',
      'atestados',
      'personal',
      'vehiculos',
      'sala092',
      'turnos',
      'equipamiento',
      'usuarios',
    ],
  })
})

t.test('D41: every retention problem is printed at once, each at its line and column; exit 1', async (t) => {
  const cli = createCli(t)
  const file = join(INVALID, 'retention-problems.yaml')
  const run = await cli.run(['validate', file])
  t.equal(run.status, 1)
  t.match(run.stdout.trim().split('\n'), [
    `${file}:27:3: expedientes: un módulo con datos personales (personal_data: true) debe declarar 'retention:'`,
    `${file}:38:13: multas: 'from' debe ser un campo de fecha o fecha y hora`,
    `${file}:39:21: multas: 'review_every' no es una duración válida: '3 años'`,
    `${file}:40:21: multas: 'keep_at_most' no es una duración válida: '0d'`,
    `${file}:47:13: quejas: 'from' nombra un estado que no existe: 'archivda'`,
    `${file}:55:13: citas: 'from' no puede ser un campo cifrado`,
  ])
  t.ok(noStack(run))
})

t.test('every problem is printed as file:line:column and a sentence; exit 1', async (t) => {
  const cli = createCli(t)
  const file = join(INVALID, 'three-rule-problems.yaml')
  const run = await cli.run(['validate', file])
  t.equal(run.status, 1)
  t.same(run.stdout.trim().split('\n'), [
    `${file}:5:13: Zona horaria desconocida 'Mars/Olympus' (ejemplo: Europe/Madrid).`,
    `${file}:25:13: El prefijo 'USR' ya lo usa el módulo 'usuarios'.`,
    `${file}:28:41: notas.etiquetas: un campo de tipo array no puede ser único.`,
    `3 problemas en ${file}`,
  ])
  t.ok(noStack(run))
})

t.test('shape, syntax and "did you mean" problems, as the loader reports them (--json)', async (t) => {
  const cli = createCli(t)
  for (const [fixture, pattern] of [
    ['yaml-syntax.yaml', /YAML no válido/],
    ['bad-field-type-did-you-mean.yaml', /¿Quería decir/],
    ['three-shape-problems.yaml', /Falta la clave obligatoria|Clave desconocida|Debe ser de tipo/],
  ] as const) {
    const run = await cli.run(['validate', join(INVALID, fixture), '--json'])
    t.equal(run.status, 1, fixture)
    const report = JSON.parse(run.stdout)
    t.equal(report.valid, false)
    t.ok(report.problems.length > 0)
    t.ok(
      report.problems.every(
        (p: { line: number; column: number; file: string }) => p.line >= 1 && p.column >= 1 && p.file.endsWith(fixture),
      ),
    )
    t.match(report.problems.map((p: { message: string }) => p.message).join('\n'), pattern, fixture)
  }
  const missing = await cli.run(['validate', 'no-such.yaml'])
  t.equal(missing.status, 1)
  t.match(missing.stdout, /no-such\.yaml:1:1: No se puede cargar la definición de módulos: el fichero no existe/)
})

t.test('a module that only a *.* role reaches is a warning, not a failure', async (t) => {
  const cli = createCli(t)
  const file = join(cli.dataDir, 'modules-new-module.yaml')
  writeFileSync(
    file,
    `${readFileSync(REPO_MODULES, 'utf8')}
  objetos_perdidos:
    prefix: OBP
    fields:
      descripcion: { type: text, required: true }
`,
  )
  const run = await cli.run(['validate', file])
  t.equal(run.status, 0, 'still valid')
  t.same(run.stdout.trim().split('\n'), [
    `${file}: aviso: el módulo 'objetos_perdidos' solo lo alcanza 'superadmin' (*.*): ningún otro rol tiene permisos ` +
      "objetos_perdidos.*. Si otros deben usarlo, añada 'objetos_perdidos.ver' o 'objetos_perdidos.*' a sus roles.",
    ...ROLE_WARNINGS(file).trim().split('\n'),
    `${file}: válido (10 módulos, 7 roles, 3 avisos)`,
  ])
  t.match(JSON.parse((await cli.run(['validate', file, '--json'])).stdout), {
    valid: true,
    warnings: [{ module: 'objetos_perdidos' }, { role: 'superadmin' }, { role: 'administrador' }],
  })
  t.same(
    JSON.parse((await cli.run(['validate', '--json'])).stdout).warnings.map((w: { role?: string }) => w.role),
    ['superadmin', 'administrador'],
    'the shipped modules.yaml: only the roles that manage accounts without a second factor (D42)',
  )
})
