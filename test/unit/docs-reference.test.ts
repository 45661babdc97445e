// The administrators' modules.yaml reference in docs/administrators.md is checked against
// schema/modules.schema.json: a key added to or removed from the schema without the
// guide (or the other way round) fails here, and the guide's YAML examples are valid.
import { readFileSync } from 'node:fs'
import { Ajv } from 'ajv'
import t from 'tap'
import { parse } from 'yaml'

const ROOT = new URL('../../', import.meta.url).pathname
const GUIDE = readFileSync(`${ROOT}docs/administrators.md`, 'utf8')
const SCHEMA = JSON.parse(readFileSync(`${ROOT}schema/modules.schema.json`, 'utf8')) as any

/** The text between a heading and the next heading of the same or a higher level. */
function section(heading: string): string {
  const start = GUIDE.indexOf(`\n${heading}\n`)
  if (start < 0) throw new Error(`docs/administrators.md has no '${heading}'`)
  const level = /^#+/.exec(heading)?.[0] ?? '##'
  const rest = GUIDE.slice(start + heading.length + 2)
  const next = rest.search(new RegExp(`\n#{1,${level.length}} `))
  return next < 0 ? rest : rest.slice(0, next)
}

/** The backticked names in the first column of the table whose header starts with `| <first> |`. */
function firstColumn(text: string, first: string): string[] {
  const lines = text.split('\n')
  const header = lines.findIndex((line) => line.startsWith(`| ${first} |`))
  if (header < 0) throw new Error(`no table '| ${first} |'`)
  const rows = []
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break
    rows.push(line.split('|')[1] ?? '')
  }
  return rows.flatMap((cell) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string)).sort()
}

const keys = (object: Record<string, unknown>) => Object.keys(object).sort()

t.test('the field keys table lists exactly the keys of definitions.field', async (t) => {
  t.same(firstColumn(section('## modules'), 'field key'), keys(SCHEMA.definitions.field.properties))
})

t.test('the type table lists exactly the field types of the schema', async (t) => {
  t.same(firstColumn(section('## modules'), 'type'), [...SCHEMA.definitions.field.properties.type.enum].sort())
})

t.test('the service table lists exactly the keys of service (list.* spelled out)', async (t) => {
  const service = SCHEMA.properties.service.properties
  const expected = keys(service)
    .flatMap((key) => (key === 'list' ? keys(service.list.properties).map((k) => `list.${k}`) : [key]))
    .sort()
  t.same(firstColumn(section('## service'), 'key'), expected)
})

t.test("the administrators' guide's modules.yaml examples are valid against the schema", async (t) => {
  const ajv = new Ajv({ strict: false })
  ajv.addSchema(SCHEMA, 'modules')
  const blocks = [...section('# For administrators: modules.yaml').matchAll(/```yaml\n([\s\S]*?)```/g)].map(
    (m) => parse(m[1] as string) as Record<string, any>,
  )
  t.ok(blocks.length >= 2, 'the modules and roles examples')
  for (const block of blocks) {
    for (const [name, module] of Object.entries(block['modules'] ?? {}))
      t.ok(ajv.validate('modules#/definitions/module', module), `module ${name}: ${JSON.stringify(ajv.errors)}`)
    for (const [name, role] of Object.entries(block['roles'] ?? {}))
      t.ok(
        ajv.validate({ $ref: 'modules#/properties/roles' }, { [name]: role }),
        `role ${name}: ${JSON.stringify(ajv.errors)}`,
      )
  }
})
