// Each field type is one registry entry (compile/field-types/) that the compiler
// checks; this test checks what the compiler cannot: the entries agree with the declarations of
// modules.yaml and its JSON Schema, and each entry's parts agree with each other.
import { readFileSync } from 'node:fs'
import { Ajv } from 'ajv'
import addFormatsPlugin from 'ajv-formats'
import t from 'tap'
import { FIELD_DECLARATIONS } from '../../../src/config/field-declarations.js'
import { FIELD_TYPES as TYPE_NAMES, type FieldDef } from '../../../src/config/types.js'
import { COLUMN_TYPES, FIELD_TYPES, INVALID } from '../../../src/compile/field-types.js'
import { FORMATS } from '../../../src/compile/formats.js'
import { compileField } from '../../../src/compile/module.js'
import { formatTimestamp } from '../../../src/compile/time.js'

const addFormats = addFormatsPlugin as unknown as (ajv: Ajv, formats: string[]) => Ajv
const ajv = new Ajv({ allErrors: true, strict: false })
addFormats(ajv, ['email', 'uri'])
for (const [name, check] of Object.entries(FORMATS)) ajv.addFormat(name, { type: 'string', validate: check })

const SCHEMA = JSON.parse(readFileSync(new URL('../../../schema/modules.schema.json', import.meta.url), 'utf8'))
const fieldOf = (type: FieldDef['type']): FieldDef => ({
  name: 'campo',
  type,
  required: false,
  unique: false,
  encrypted: false,
  index: false,
  searchable: false,
  state: false,
})

t.test('every type of modules.yaml has one complete registry entry', async (t) => {
  t.same(
    Object.keys(FIELD_TYPES).sort(),
    [...TYPE_NAMES].sort(),
    'the registry and the declarations name the same types',
  )
  t.same(
    [...SCHEMA.definitions.field.properties.type.enum].sort(),
    [...TYPE_NAMES].sort(),
    'schema/modules.schema.json offers exactly these types',
  )
  for (const type of TYPE_NAMES) {
    const entry = FIELD_TYPES[type]
    t.ok(COLUMN_TYPES[entry.storage], `${type}: a column on every dialect`)
    t.ok(entry.label.length > 0, `${type}: a Spanish label`)
    t.equal(
      FIELD_DECLARATIONS[type].acceptsNow,
      entry.now !== undefined,
      `${type}: $now is accepted where it means something`,
    )
    t.equal(FIELD_DECLARATIONS[type], entry.declaration, `${type}: config/ reads the declaration of the type's file`)
    const { writeOnly, references, comparable } = entry.declaration
    if (writeOnly)
      t.ok(
        !comparable && !entry.sortable && entry.parseFilter === null,
        `${type}: a value never returned never compares`,
      )
    if (references) t.ok(comparable && entry.storage === 'text', `${type}: an id is indexed text`)
  }
  t.same(
    TYPE_NAMES.filter((type) => FIELD_DECLARATIONS[type].writeOnly),
    ['password'],
    'password hashes are the values written and never read',
  )
  t.same(
    TYPE_NAMES.filter((type) => FIELD_DECLARATIONS[type].references),
    ['ref'],
    'ref holds the id of another module',
  )
})

t.test("a type's example is valid under its schema, survives its CSV cell and its filter", async (t) => {
  for (const type of TYPE_NAMES) {
    const entry = FIELD_TYPES[type]
    const field = compileField(fieldOf(type), { roles: ['jefe', 'agente'] })
    const example = entry.example(field)
    t.not(example, undefined, `${type}: an example for the OpenAPI document`)
    t.ok(ajv.validate(field.valueSchema, example), `${type}: ${JSON.stringify(example)} is valid (${ajv.errorsText()})`)
    const text = typeof example === 'string' ? example : JSON.stringify(example)
    t.same(entry.cell(text), example, `${type}: its CSV cell converts back to it`)
    if (entry.parseFilter !== null) t.not(entry.parseFilter(text), INVALID, `${type}: a filter accepts it`)
  }
})

t.test("a type's CSV cell: a `;` file's decimal comma is the decimal type's alone", async (t) => {
  const context = { decimalComma: true }
  t.equal(FIELD_TYPES.decimal.cell('12,5', context), 12.5)
  t.equal(FIELD_TYPES.decimal.cell('12,5'), '12,5', 'a `,` file passes it on as text (the validator words it)')
  t.equal(FIELD_TYPES.integer.cell('12,5', context), '12,5')
  t.equal(FIELD_TYPES.string.cell('12,5', context), '12,5')
})

t.test("a type's demo value (records demo) is valid under its schema", async (t) => {
  let state = 0
  const random = {
    next: () => (state = (state + 0.37) % 1),
    int: (min: number, max: number) => min + Math.floor(random.next() * (max - min + 1)),
    pick: <T>(values: readonly T[]): T => values[0] as T,
    chance: () => true,
  }
  const context = {
    n: 3,
    random,
    pastStamp: () => formatTimestamp(new Date('2025-11-02T09:15:00Z'), 'Europe/Madrid'),
    roles: ['jefe'],
    idsOf: () => ['DEN-2026-00001'],
    password: () => 'Contraseña-de-demo-1',
  }
  for (const type of TYPE_NAMES) {
    const field = compileField(
      { ...fieldOf(type), required: true, module: type === 'ref' ? 'denuncias' : undefined },
      {
        roles: ['jefe'],
      },
    )
    const value = FIELD_TYPES[type].demo(field, context)
    t.ok(ajv.validate(field.valueSchema, value), `${type}: ${JSON.stringify(value)} (${ajv.errorsText()})`)
  }
})
