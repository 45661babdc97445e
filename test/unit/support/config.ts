// Configurations for unit tests: the shipped modules.yaml, fixtures and small edits of them.
import { readFileSync } from 'node:fs'
import { validateModulesSource } from '../../../src/config/validate.js'
import type { FieldDef, ModuleDef, ModulesConfig } from '../../../src/config/types.js'
import { compileService } from '../../../src/compile/service.js'
import type { ModuleSpec, ServiceSpec } from '../../../src/compile/types.js'

export const SHIPPED_MODULES = new URL('../../../modules.yaml', import.meta.url)
export const FIXTURES = new URL('../../fixtures/modules/', import.meta.url)

/** Validates YAML text and fails loudly (with every problem) when it does not validate. */
export function configFrom(text: string, file = 'test.yaml'): ModulesConfig {
  const result = validateModulesSource(text, file)
  if (!result.ok)
    throw new Error(
      `expected a valid configuration:\n${result.problems.map((p) => `${p.line}:${p.column} ${p.message}`).join('\n')}`,
    )
  return result.config
}

export const shippedConfig = (): ModulesConfig => configFrom(readFileSync(SHIPPED_MODULES, 'utf8'), 'modules.yaml')
export const shippedService = (): ServiceSpec => compileService(shippedConfig())

export function moduleOf(service: ServiceSpec, name: string): ModuleSpec {
  const spec = service.moduleByName.get(name)
  if (spec === undefined) throw new Error(`no module ${name}`)
  return spec
}

/** A copy of `config` whose module `name` went through `edit`. */
export function editModule(config: ModulesConfig, name: string, edit: (mod: ModuleDef) => ModuleDef): ModulesConfig {
  if (!config.modules.some((m) => m.name === name)) throw new Error(`no module ${name}`)
  return { ...config, modules: config.modules.map((m) => (m.name === name ? edit(m) : m)) }
}

/** A copy of `config` whose field `module.field` went through `edit`. */
export function editField(
  config: ModulesConfig,
  module: string,
  field: string,
  edit: (f: FieldDef) => FieldDef,
): ModulesConfig {
  return editModule(config, module, (m) => {
    if (!m.fields.some((f) => f.name === field)) throw new Error(`no field ${module}.${field}`)
    return { ...m, fields: m.fields.map((f) => (f.name === field ? edit(f) : f)) }
  })
}

/** A plain field definition with every flag off. */
export const field = (name: string, type: FieldDef['type'], extra: Partial<FieldDef> = {}): FieldDef => ({
  name,
  type,
  required: false,
  unique: false,
  encrypted: false,
  index: false,
  searchable: false,
  state: false,
  ...extra,
})
