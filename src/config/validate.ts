// modules.yaml text -> a typed ModulesConfig, or every problem found (shape first, then rules).
import type { ConfigProblem } from '../errors.js'
import { toAccess, toWorkflow } from './access-defs.js'
import { checkRules } from './rules.js'
import { validateShapeOf } from './schema-problems.js'
import type {
  FieldDef,
  FieldType,
  ModuleDef,
  ModulesConfig,
  OnExpiry,
  RetentionDef,
  RoleDef,
  SecondFactorRule,
  WorkflowDef,
} from './types.js'
import { parseYamlSource } from './yaml-source.js'

export type ValidationResult =
  | { readonly ok: true; readonly config: ModulesConfig }
  | { readonly ok: false; readonly problems: readonly ConfigProblem[] }

type Raw = Record<string, unknown>
const asRaw = (value: unknown): Raw => (value ?? {}) as Raw

function toField(name: string, raw: Raw): FieldDef {
  const optional = <K extends string>(key: K, as: string = key) => (raw[key] === undefined ? {} : { [as]: raw[key] })
  return {
    name,
    type: raw['type'] as FieldType,
    required: raw['required'] === true,
    unique: raw['unique'] === true,
    encrypted: raw['encrypted'] === true,
    index: raw['index'] === true,
    searchable: raw['searchable'] === true,
    state: raw['state'] === true,
    ...optional('description'),
    ...optional('enum'),
    ...optional('examples'),
    ...optional('default'),
    ...optional('minimum'),
    ...optional('maximum'),
    ...optional('min_length', 'minLength'),
    ...optional('max_length', 'maxLength'),
    ...optional('pattern'),
    ...optional('format'),
    ...optional('renamed_from', 'renamedFrom'),
    ...optional('renamed_values', 'renamedValues'),
    ...optional('module'),
    ...optional('on_delete', 'onDelete'),
    ...optional('max_size', 'maxSize'),
    ...optional('types'),
  }
}

function toRetention(raw: Raw): RetentionDef {
  return {
    basis: raw['basis'] as string,
    from: raw['from'] as string,
    reviewEvery: raw['review_every'] as string,
    ...(raw['keep_at_most'] === undefined ? {} : { keepAtMost: raw['keep_at_most'] as string }),
    onExpiry: (raw['on_expiry'] as OnExpiry | undefined) ?? 'review',
  }
}

function toConfig(raw: Raw): ModulesConfig {
  const service = asRaw(raw['service'])
  const list = asRaw(service['list'])
  const accounts = asRaw(service['accounts'])
  const roles: RoleDef[] = Object.entries(asRaw(raw['roles'])).map(([name, value]) => {
    const role = asRaw(value)
    return {
      name,
      permissions: role['permissions'] as string[],
      ...(role['description'] === undefined ? {} : { description: role['description'] as string }),
      ...(role['segundo_factor'] === undefined ? {} : { secondFactor: role['segundo_factor'] as SecondFactorRule }),
    }
  })
  const modules: ModuleDef[] = Object.entries(asRaw(raw['modules'])).map(([name, value]) => {
    const mod = asRaw(value)
    return {
      name,
      prefix: mod['prefix'] as string,
      ...(mod['description'] === undefined ? {} : { description: mod['description'] as string }),
      fields: Object.entries(asRaw(mod['fields'])).map(([fieldName, field]) => toField(fieldName, asRaw(field))),
      indexes: (mod['indexes'] as string[][] | undefined) ?? [],
      access: toAccess(name, mod['access']),
      ...(mod['workflow'] === undefined ? {} : { workflow: toWorkflow(mod['workflow']) as WorkflowDef }),
      personalData: mod['personal_data'] === true,
      motivoRequired: asRaw(mod['motivo_requerido']) as ModuleDef['motivoRequired'],
      ...(mod['retention'] === undefined ? {} : { retention: toRetention(asRaw(mod['retention'])) }),
    }
  })
  return {
    service: {
      timezone: (service['timezone'] as string | undefined) ?? 'Europe/Madrid',
      tokenDays: (service['token_days'] as number | undefined) ?? 7,
      auditPath: (service['audit_path'] as string | undefined) ?? 'auditoria',
      list: {
        defaultLimit: (list['default_limit'] as number | undefined) ?? 100,
        maxLimit: (list['max_limit'] as number | undefined) ?? 1000,
        maxFilters: (list['max_filters'] as number | undefined) ?? 20,
      },
      accounts: {
        module: accounts['module'] as string,
        username: accounts['username'] as string,
        password: accounts['password'] as string,
        role: accounts['role'] as string,
        active: accounts['active'] as string,
        profile: accounts['profile'] as string[],
      },
    },
    roles,
    modules,
  }
}

/** Validates the text of a modules file exactly as the server does at startup. */
export function validateModulesSource(text: string, file: string): ValidationResult {
  const source = parseYamlSource(text, file)
  if (source.syntaxProblems.length > 0) return { ok: false, problems: source.syntaxProblems }
  const shapeProblems = validateShapeOf(source)
  if (shapeProblems.length > 0) return { ok: false, problems: shapeProblems }
  const config = toConfig(asRaw(source.value))
  const ruleProblems = checkRules(config, source)
  return ruleProblems.length > 0 ? { ok: false, problems: ruleProblems } : { ok: true, config }
}
