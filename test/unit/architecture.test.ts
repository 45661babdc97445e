// The layering of STYLE.md section 2, and "modules live in modules.yaml, not in code".
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import t from 'tap'
import { loadModulesConfig } from '../../src/config/load.js'

const ROOT = new URL('../../', import.meta.url).pathname
const SRC = join(ROOT, 'src')

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : []
  })
}

const sources = files(SRC).map((path) => ({ path: relative(SRC, path), text: readFileSync(path, 'utf8') }))
const importsOf = (text: string) => [...text.matchAll(/^import .* from '([^']+)'/gm)].map((m) => m[1] as string)
const layerOf = (path: string): string => (path.includes('/') ? (path.split('/')[0] ?? '') : path.replace(/\.ts$/, ''))

// Only app/ and cli/ wire layers together: no other layer imports them.
const WIRING = /\/(app|cli)\//
const FORBIDDEN: Record<string, RegExp[]> = {
  errors: [/^\./],
  // A field type is one file of compile/field-types/ (STYLE.md section 10), its declaration rules
  // included: config/field-declarations.ts lists those, and that folder is all of compile/ config sees.
  config: [/\/(records|db|http)\//, /\/compile\/(?!field-types\/)/, /^kysely|^fastify|^better-sqlite3/, WIRING],
  compile: [/^node:/, /^kysely/, /^fastify/, /\/(records|db|http)\//, WIRING],
  // Per-request pure logic: compile's output and the errors, ajv for bodies; no I/O, no SQL, no HTTP.
  records: [/^(?!\/(compile|records)\/|\/errors\.js$|ajv$|ajv-formats$)/],
  db: [/\/http\//, /^fastify/, /^@fastify/, WIRING],
  http: [/^kysely/, /^better-sqlite3/, /\/config\/load/, WIRING],
  // The OpenAPI generator is pure like compile/: a `records openapi` command and the app share it.
  openapi: [/^node:/, /^kysely/, /^fastify/, /^@fastify/, /\/(db|http|config\/load)/, WIRING],
  // Route contracts are data that http/ serves and openapi/ writes down: they import neither.
  contracts: [/^node:/, /^kysely/, /^fastify/, /^@fastify/, /\/(db|http|openapi|config\/load)/, WIRING],
}

t.test('each layer imports only what STYLE.md section 2 allows', async (t) => {
  for (const { path, text } of sources) {
    const rules = FORBIDDEN[layerOf(path)] ?? []
    const resolve = (spec: string) => (spec.startsWith('.') ? `/${relative(SRC, join(SRC, path, '..', spec))}` : spec)
    const bad = importsOf(text).filter((spec) =>
      rules.some((rule) => rule.test(layerOf(path) === 'errors' ? spec : resolve(spec))),
    )
    t.same(bad, [], `${path} imports only what its layer may`)
  }
  t.ok(sources.length > 20, 'the scan saw the sources')
})

t.test('config/ reaches compile/ only for the field types, which need nothing of config/ at run time', async (t) => {
  for (const { path, text } of sources.filter(
    (s) => s.path.startsWith('config/') && s.path !== 'config/field-declarations.ts',
  ))
    t.notMatch(text, /from '[./]*\/compile\//, path)
  // Their declarations are read while config/ loads: a value imported back from config/ would be a cycle.
  for (const { path, text } of sources.filter((s) => s.path.startsWith('compile/field-types/'))) {
    t.same(text.match(/^import (?!type ).* from '[./]*\/config\/.*$/gm) ?? [], [], `${path}: config types only`)
    const compileImports = importsOf(text).filter((spec) => spec.startsWith('../') && !spec.startsWith('../../'))
    t.ok(
      compileImports.every((spec) => spec === '../formats.js' || spec === '../types.js'),
      `${path}: ${compileImports}`,
    )
  }
})

t.test("http/ sees the store's types only, never its code", async (t) => {
  for (const { path, text } of sources.filter((s) => s.path.startsWith('http/')))
    t.same(text.match(/^import (?!type ).* from '[./]*\/db\/.*$/gm) ?? [], [], path)
})

// Every import of a file of src/, type-only ones included, multi-line ones too.
const localImportsOf = (path: string, text: string) =>
  [...text.matchAll(/^(?:import|export)\s[^'"]*?\bfrom\s+'(\.[^']+)'|^import\s+'(\.[^']+)'|\bimport\('(\.[^']+)'\)/gm)]
    .map((m) => (m[1] ?? m[2] ?? m[3]) as string)
    .map((spec) => relative(SRC, join(SRC, path, '..', spec)).replace(/\.js$/, '.ts'))

t.test('no import cycle in src/, type-only imports included', async (t) => {
  const graph = new Map(sources.map(({ path, text }) => [path, localImportsOf(path, text)]))
  // Depth-first: a file met again while it is still on the path closes a cycle.
  const cycles: string[] = []
  const done = new Set<string>()
  const visit = (path: string, trail: string[]) => {
    const at = trail.indexOf(path)
    if (at >= 0) return void cycles.push([...trail.slice(at), path].join(' -> '))
    if (done.has(path) || !graph.has(path)) return
    for (const next of graph.get(path) ?? []) visit(next, [...trail, path])
    done.add(path)
  }
  for (const path of graph.keys()) visit(path, [])
  t.same(cycles, [], 'each file of src/ stands above every file it imports')
  t.ok([...graph.values()].flat().length > 500, 'the scan saw the imports')
})

t.test('config/ reads the disk only in load.ts', async (t) => {
  for (const { path, text } of sources.filter((s) => s.path.startsWith('config/') && s.path !== 'config/load.ts'))
    t.notMatch(text, /from 'node:fs'/, path)
})

t.test('no module name, state or field of modules.yaml appears in src/', async (t) => {
  const config = loadModulesConfig(join(ROOT, 'modules.yaml'))
  // The login body's keys and the accounts defaults are the specification's API (API reference 4.1).
  const allowed = new Set([
    'username',
    'password',
    'nombre',
    'email',
    'tipo',
    'estado',
    'descripcion',
    'observaciones',
    'fecha',
    'categoria',
    // The identity-document naming convention of the DPO's `dni=` query (D34): `dni`, `nif`, `*_dni`, `*_nif`.
    'dni',
    'nif',
  ])
  const words = new Set<string>()
  for (const mod of config.modules) {
    words.add(mod.name)
    for (const field of mod.fields) {
      if (!allowed.has(field.name)) words.add(field.name)
      for (const value of field.enum ?? []) words.add(value)
    }
  }
  for (const role of config.roles) words.add(role.name)
  for (const { path, text } of sources) {
    const code = text.replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '')
    const named = [...words].filter((word) => new RegExp(`['"\`]${word}['"\`.]`).test(code))
    t.same(named, [], `${path} names no module, field, state or role`)
  }
})
