// modules.yaml's shape validator as the build writes it (src/config/shape-validator.ts): the same
// answers and the same errors, word for word, as the schema compiled at run time; and a built
// file that is missing or was built from another schema is never used.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { parse } from 'yaml'
import { builtValidator, compiledValidator, shapeValidatorSource } from '../../../src/config/shape-validator.js'

// Inside the checkout, so that the built code's require('ajv/...') resolves from node_modules.
const dir = join(import.meta.dirname, '..', '..', '..', 'test-artifacts', 'shape-validator')
mkdirSync(dir, { recursive: true })
const file = (name: string, text: string) => {
  const path = join(dir, `${name}-${process.pid}.cjs`)
  writeFileSync(path, text)
  return pathToFileURL(path)
}

t.test('the built validator answers as the compiled schema does, errors included', async (t) => {
  const built = builtValidator(file('built', shapeValidatorSource()))
  if (built === undefined) throw new Error('the built validator was not taken')
  const here = compiledValidator()
  const shipped = parse(await import('node:fs/promises').then((fs) => fs.readFile('modules.yaml', 'utf8'))) as Record<
    string,
    unknown
  >
  const modules = shipped['modules'] as Record<string, Record<string, unknown>>
  const denuncias = modules['denuncias'] as Record<string, unknown>
  const cases: Record<string, unknown> = {
    'the shipped modules.yaml': shipped,
    'an empty document': {},
    'a key no one declared': { ...shipped, servicio: {} },
    'a prefix of the wrong type and shape': {
      ...shipped,
      modules: { ...modules, denuncias: { ...denuncias, prefix: 7 } },
    },
    'a module without fields': { ...shipped, modules: { ...modules, vacio: { prefix: 'VAC' } } },
    'a field of an unknown type': {
      ...shipped,
      modules: {
        ...modules,
        denuncias: { ...denuncias, fields: { ...(denuncias['fields'] as object), rareza: { type: 'color' } } },
      },
    },
  }
  for (const [name, value] of Object.entries(cases)) {
    t.equal(built(value), here(value), `${name}: the same answer`)
    t.same(built.errors ?? null, here.errors ?? null, `${name}: the same errors`)
  }
  t.ok(here(shipped), 'the shipped file is valid')
})

t.test('a built file missing, or built from another schema, is not used', async (t) => {
  t.equal(builtValidator(new URL('file:///nonexistent/modules-validator.cjs')), undefined, 'missing: compiled here')
  const stale = shapeValidatorSource().replace(/schemaHash = "[0-9a-f]+"/, 'schemaHash = "0000"')
  t.equal(builtValidator(file('stale', stale)), undefined, 'another schema: compiled here')
})
