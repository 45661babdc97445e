// modules.yaml -> ModulesConfig or every problem, located (STYLE 4, API reference 2.8, D2..D25).
import { readdirSync, readFileSync } from 'node:fs'
import t from 'tap'
import { validateModulesSource } from '../../../src/config/validate.js'
import { FIXTURES, SHIPPED_MODULES, configFrom } from '../support/config.js'

const INVALID = new URL('invalid/', FIXTURES)
const VALID = new URL('valid/', FIXTURES)
const yamlFiles = (dir: URL): string[] =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()

interface Expectation {
  readonly line: number
  readonly column: number
  readonly message: string
}

/** The `# expect: <line>:<column> <message substring>` lines that open an invalid fixture. */
function expectationsOf(text: string): Expectation[] {
  const expectations: Expectation[] = []
  for (const line of text.split('\n')) {
    const match = /^# expect: (\d+):(\d+) (.+)$/.exec(line)
    if (match === null) break
    expectations.push({ line: Number(match[1]), column: Number(match[2]), message: match[3] ?? '' })
  }
  return expectations
}

t.test(
  'the shipped modules.yaml validates with the nine modules of D2, the six roles of D21 and the dpd of D41',
  async (t) => {
    const result = validateModulesSource(readFileSync(SHIPPED_MODULES, 'utf8'), 'modules.yaml')
    if (!result.ok) return t.fail(result.problems.map((p) => `${p.line}:${p.column} ${p.message}`).join('\n'))
    t.same(
      result.config.modules.map((m) => m.name),
      ['denuncias', 'sanciones', 'atestados', 'personal', 'vehiculos', 'sala092', 'turnos', 'equipamiento', 'usuarios'],
    )
    t.same(
      result.config.modules.map((m) => m.prefix),
      ['DEN', 'SAN', 'ATE', 'PER', 'VEH', '092', 'TUR', 'EQU', 'USR'],
    )
    t.same(
      result.config.roles.map((r) => r.name),
      ['superadmin', 'administrador', 'jefe', 'oficial', 'agente', 'consulta', 'dpd'],
    )
    t.same(result.config.service, {
      timezone: 'Europe/Madrid',
      tokenDays: 7,
      auditPath: 'auditoria',
      list: { defaultLimit: 100, maxLimit: 1000, maxFilters: 20 },
      accounts: {
        module: 'usuarios',
        username: 'username',
        password: 'password',
        role: 'rol',
        active: 'activo',
        profile: ['username', 'nombre', 'rol', 'email'],
      },
    })
  },
)

t.test('D22: YAML keys become typed field definitions (min_length -> minLength, flags default to false)', async (t) => {
  const usuarios = configFrom(readFileSync(SHIPPED_MODULES, 'utf8')).modules.find((m) => m.name === 'usuarios')
  t.same(usuarios?.fields, [
    {
      name: 'username',
      type: 'string',
      required: true,
      unique: true,
      encrypted: false,
      index: false,
      searchable: false,
      state: false,
      maxLength: 64,
    },
    {
      name: 'password',
      type: 'password',
      required: true,
      unique: false,
      encrypted: false,
      index: false,
      searchable: false,
      state: false,
      minLength: 8,
    },
    {
      name: 'nombre',
      type: 'string',
      required: true,
      unique: false,
      encrypted: false,
      index: false,
      searchable: false,
      state: false,
    },
    {
      name: 'rol',
      type: 'role',
      required: true,
      unique: false,
      encrypted: false,
      index: false,
      searchable: false,
      state: false,
    },
    {
      name: 'email',
      type: 'string',
      required: false,
      unique: false,
      encrypted: false,
      index: false,
      searchable: false,
      state: false,
      format: 'email',
    },
    {
      name: 'activo',
      type: 'boolean',
      required: false,
      unique: false,
      encrypted: false,
      index: false,
      searchable: false,
      state: false,
      default: true,
    },
    {
      name: 'personal_id',
      type: 'ref',
      required: false,
      unique: false,
      encrypted: false,
      index: false,
      searchable: false,
      state: false,
      module: 'personal',
    },
  ])
})

t.test('D1, D9, D11: omitted service settings take their documented defaults', async (t) => {
  const config = configFrom(readFileSync(new URL('minimal.yaml', VALID), 'utf8'))
  t.same(config.service, {
    timezone: 'Europe/Madrid',
    tokenDays: 7,
    auditPath: 'auditoria',
    list: { defaultLimit: 100, maxLimit: 1000, maxFilters: 20 },
    accounts: {
      module: 'usuarios',
      username: 'username',
      password: 'password',
      role: 'rol',
      active: 'activo',
      profile: ['username'],
    },
  })
})

t.test('valid fixtures validate', async (t) => {
  const files = yamlFiles(VALID)
  t.ok(files.length >= 2, 'at least the minimal and the tenth-module fixtures')
  for (const file of files) {
    const result = validateModulesSource(readFileSync(new URL(file, VALID), 'utf8'), file)
    t.same(result.ok ? [] : result.problems, [], `${file} has no problems`)
  }
})

t.test('a tenth module is served by configuration alone', async (t) => {
  const config = configFrom(readFileSync(new URL('tenth-module.yaml', VALID), 'utf8'))
  t.equal(config.modules.length, 10)
  t.same(config.modules.at(-1)?.name, 'objetos_perdidos')
  t.ok(config.roles.find((r) => r.name === 'consulta')?.permissions.includes('objetos_perdidos.ver'))
})

t.test('every invalid fixture produces the problems its header names', async (t) => {
  const files = yamlFiles(INVALID)
  t.ok(files.length >= 20, `${files.length} invalid fixtures`)
  for (const file of files) {
    t.test(file, async (t) => {
      const text = readFileSync(new URL(file, INVALID), 'utf8')
      const expectations = expectationsOf(text)
      t.ok(expectations.length > 0, 'the fixture starts with `# expect: <line>:<column> <message>`')
      const result = validateModulesSource(text, file)
      if (result.ok) return t.fail('expected the configuration to be rejected')
      const shown = result.problems.map((p) => `${p.line}:${p.column} ${p.message}`).join('\n')
      for (const e of expectations) {
        const found = result.problems.some(
          (p) => p.line === e.line && p.column === e.column && p.message.includes(e.message),
        )
        t.ok(found, `${e.line}:${e.column} ${e.message}`, { found: shown })
      }
      t.ok(
        result.problems.every((p) => p.file === file),
        'each problem names the file',
      )
    })
  }
})

t.test('STYLE 4: every rule problem of a file is reported at once, not only the first', async (t) => {
  const result = validateModulesSource(readFileSync(new URL('three-rule-problems.yaml', INVALID), 'utf8'), 'x.yaml')
  t.equal(result.ok, false)
  if (!result.ok) t.equal(result.problems.length, 3, 'bad timezone, duplicate prefix and unique array: three problems')
})

t.test('STYLE 4: every shape problem of a file is reported at once (ajv allErrors)', async (t) => {
  const result = validateModulesSource(readFileSync(new URL('three-shape-problems.yaml', INVALID), 'utf8'), 'x.yaml')
  t.equal(result.ok, false)
  if (!result.ok) t.equal(result.problems.length, 3, 'bad prefix, unknown key and unknown type: three problems')
})

t.test('problems of the rules are listed in file order', async (t) => {
  const result = validateModulesSource(readFileSync(new URL('three-rule-problems.yaml', INVALID), 'utf8'), 'x.yaml')
  if (result.ok) return t.fail('expected problems')
  t.same(
    result.problems.map((p) => p.line),
    [5, 25, 28],
  )
})

t.test('a syntax error stops before the shape check: only the YAML problem is reported', async (t) => {
  const result = validateModulesSource('service: [unclosed\nroles: {}\n', 'x.yaml')
  if (result.ok) return t.fail('expected problems')
  t.ok(result.problems.length > 0)
  t.ok(result.problems.every((p) => p.message.startsWith('YAML no válido: ')))
})

t.test('an empty file names the three required top-level keys', async (t) => {
  const result = validateModulesSource('{}\n', 'x.yaml')
  if (result.ok) return t.fail('expected problems')
  t.same(result.problems.map((p) => p.message).sort(), [
    "Falta la clave obligatoria 'modules'.",
    "Falta la clave obligatoria 'roles'.",
    "Falta la clave obligatoria 'service'.",
  ])
})

t.test('D21: a permission on the audit trail (auditoria.ver) is accepted', async (t) => {
  const text = readFileSync(new URL('minimal.yaml', VALID), 'utf8').replace(
    "    permissions: ['*.*']\n",
    "    permissions: ['*.*']\n  auditor:\n    permissions: [auditoria.ver, notas.*]\n",
  )
  t.ok(validateModulesSource(text, 'x.yaml').ok)
})

t.test('D12, D14: an encrypted field may be unique (personal.nif)', async (t) => {
  const text = readFileSync(new URL('minimal.yaml', VALID), 'utf8').replace(
    '      titulo: { type: string, required: true }\n',
    '      titulo: { type: string, required: true }\n      nif: { type: string, encrypted: true, unique: true }\n',
  )
  t.ok(validateModulesSource(text, 'x.yaml').ok)
})
