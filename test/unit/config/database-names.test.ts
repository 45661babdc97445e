// The names a module's objects get in the database: composite indexes readable when
// they can be, unique, at most 63 bytes; every name the engine creates is one the rule checks.
import { readdirSync, readFileSync } from 'node:fs'
import t from 'tap'
import { compileService } from '../../../src/compile/service.js'
import { archiveName, compositeIndexName, databaseObjectsOf, storedName } from '../../../src/config/database-names.js'
import { validateModulesSource } from '../../../src/config/validate.js'
import { FIXTURES, configFrom, shippedConfig } from '../support/config.js'

t.test('a short name is the table and its fields, joined by __, after cx_', async (t) => {
  t.equal(compositeIndexName('denuncias', ['estado', 'prioridad']), 'cx_denuncias__estado__prioridad')
  t.equal(compositeIndexName('denuncias', ['prioridad', 'estado']), 'cx_denuncias__prioridad__estado', 'order matters')
})

t.test('names that could be read two ways end in a hash, so they differ', async (t) => {
  const one = compositeIndexName('t', ['a__b', 'c'])
  const other = compositeIndexName('t', ['a', 'b__c'])
  t.match(one, /^cx_t__a__b__c_[0-9a-f]{8}$/)
  t.match(other, /^cx_t__a__b__c_[0-9a-f]{8}$/)
  t.not(one, other)
})

t.test('PostgreSQL identifiers: a long name is cut by bytes (ñ is two) and ends in a hash', async (t) => {
  const name = compositeIndexName('ñaña'.repeat(9), ['ñoño_ñoño_ñoño', 'ñu'])
  t.equal(Buffer.byteLength(name), 63)
  t.match(name, /^cx_(ña)+_[0-9a-f]{8}$/, 'no character is cut in half')
  t.equal(compositeIndexName('ñaña'.repeat(9), ['ñoño_ñoño_ñoño', 'ñu']), name, 'deterministic')
  t.not(compositeIndexName('ñaña'.repeat(9), ['ñoño_ñoño_ñoño', 'ñi']), name, 'another field list, another hash')
})

t.test("storedName keeps PostgreSQL's first 63 bytes, never half a character", async (t) => {
  t.equal(storedName('ix_denuncias_estado'), 'ix_denuncias_estado', 'a short name is whole')
  const long = `ix_${'a'.repeat(60)}ñ`
  t.equal(storedName(long), `ix_${'a'.repeat(60)}`, 'ñ (2 bytes) would pass the 63rd byte: it goes whole')
  t.equal(Buffer.byteLength(storedName(`ux_${'ñ'.repeat(40)}`)), 63)
})

// The rule (config/rules.ts) can only keep apart the names it knows: every table and index the
// compile step declares must be among the objects databaseObjectsOf lists for its module.
t.test('every index the compile step declares is an object the rule checks', async (t) => {
  const valid = new URL('valid/', FIXTURES)
  const configs = [
    shippedConfig(),
    ...readdirSync(valid)
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => configFrom(readFileSync(new URL(f, valid), 'utf8'), f)),
  ]
  let checked = 0
  for (const config of configs) {
    const spec = compileService(config)
    for (const mod of config.modules) {
      const listed = new Set(databaseObjectsOf(mod).map((o) => o.name))
      const table = spec.moduleByName.get(mod.name)?.table
      for (const name of [table?.name, ...(table?.indexes ?? []).map((i) => i.name)]) {
        t.ok(name !== undefined && listed.has(name), `${mod.name}: ${name}`)
        checked++
      }
    }
  }
  t.ok(checked > 50, `the check saw the indexes (${checked})`)
})

t.test('an archive keeps its readable name within 63 bytes, a longer one is cut and hashed apart', async (t) => {
  t.equal(archiveName('20261124173626', 'marca'), '_archived_20261124173626_marca')
  const long = 'observaciones_del_instructor_de_la_causa_'
  const one = archiveName('20261124173626', `${long}penal`)
  const other = archiveName('20261124173626', `${long}civil`)
  t.equal(Buffer.byteLength(one), 63)
  t.match(one, /^_archived_20261124173626_observaciones_del_instructor__[0-9a-f]{8}$/)
  t.not(storedName(one), storedName(other), 'two long names alike in their first bytes stay apart')
})

// The head of a valid file (accounts, one role, the accounts module) and `modules` added after it.
const withModules = (modules: string) =>
  `${readFileSync(new URL('invalid/duplicate-prefix.yaml', FIXTURES), 'utf8').split('\n').slice(1, 20).join('\n')}\n${modules}`
const problemsOf = (modules: string) => {
  const result = validateModulesSource(withModules(modules), 'test.yaml')
  return result.ok ? [] : result.problems.map((p) => p.message)
}

t.test("PostgreSQL's own names for a table's key and sequence are names a module cannot take", async (t) => {
  const caso = '  caso:\n    prefix: CAS\n    fields:\n      titulo: { type: string }\n'
  t.same(problemsOf(caso), [], 'one module alone is valid')
  for (const [name, what] of [
    ['caso_pkey', 'la clave primaria'],
    ['caso__row_seq', 'la secuencia'],
  ] as const)
    t.match(
      problemsOf(`${caso}  ${name}:\n    prefix: CAX\n    fields:\n      titulo: { type: string }\n`),
      [
        new RegExp(
          `\\('${name}'\\) a dos objetos: la tabla del módulo '${name}' y ${what} de la tabla del módulo 'caso'`,
        ),
      ],
      name,
    )
})

t.test('a trigger name is compared with triggers only: SQLite keeps them apart', async (t) => {
  const searchable = '  caso:\n    prefix: CAS\n    fields:\n      texto: { type: text, searchable: true }\n'
  t.same(problemsOf(`${searchable}  caso__fts_ai:\n    prefix: CAX\n    fields:\n      titulo: { type: string }\n`), [])
  t.match(
    problemsOf(`${searchable}  caso__fts_data:\n    prefix: CAX\n    fields:\n      titulo: { type: string }\n`),
    [/'caso__fts_data'/],
    'a table of the search is a table',
  )
})
