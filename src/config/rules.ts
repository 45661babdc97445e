// What the JSON Schema of modules.yaml cannot say: rules across fields, modules and roles.
import type { ConfigProblem } from '../errors.js'
import { checkAccess, checkWorkflows, type Report } from './access-rules.js'
import { checkRetention } from './retention-rules.js'
import { checkFileFields } from './file-rules.js'
import { SYSTEM_INDEXES, databaseObjectsOf, storedName, type DatabaseObject } from './database-names.js'
import { didYouMean } from './suggest.js'
import { FIELD_DECLARATIONS, type FieldDeclaration } from './field-declarations.js'
import {
  ACTIONS,
  BLOCKED_ACTION,
  FIELD_TYPES,
  RETENTION_ACTIONS,
  RETENTION_NAMESPACE,
  SUBJECTS_NAMESPACE,
  type FieldDef,
  type FieldType,
  type ModuleDef,
  type ModulesConfig,
} from './types.js'
import type { YamlSource } from './yaml-source.js'

/** Path segments the service itself serves below BASE_PATH (API reference 4, D3). */
const RESERVED_PATHS = ['auth', 'me', 'health', 'docs', 'openapi', RETENTION_NAMESPACE, SUBJECTS_NAMESPACE]

/** Query parameters of a list (D11): a field cannot share their names. */
const RESERVED_FIELDS = ['limit', 'offset', 'sort', 'expand']

const declarationOf = (type: FieldType): FieldDeclaration => FIELD_DECLARATIONS[type]
/** `integer o decimal`: the types whose declarations pass `test`, for a message. */
const typesWhere = (test: (d: FieldDeclaration) => boolean): string => {
  const names = FIELD_TYPES.filter((type) => test(declarationOf(type)))
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} o ${names.at(-1)}`
}

function defaultFits(field: FieldDef): boolean {
  const value = field.default
  if (value === '$now') return declarationOf(field.type).acceptsNow
  if (field.enum !== undefined) return typeof value === 'string' && field.enum.includes(value)
  return declarationOf(field.type).defaultFits(value)
}

function checkField(mod: ModuleDef, field: FieldDef, report: Report): void {
  const at = (key: string) => ['modules', mod.name, 'fields', field.name, key]
  const name = `${mod.name}.${field.name}`
  const type = declarationOf(field.type)
  if (field.enum !== undefined && !type.enumerable)
    report(at('enum'), `${name}: 'enum' solo se admite en campos de tipo ${typesWhere((d) => d.enumerable)}.`)
  if (field.state && field.enum === undefined)
    report(at('state'), `${name}: el campo de estado necesita 'enum' con la lista de estados.`)
  if (field.default !== undefined && !defaultFits(field))
    report(
      at('default'),
      `${name}: el valor por defecto no es válido para el tipo ${field.type}${field.enum ? ` (valores posibles: ${field.enum.join(', ')})` : ''}.`,
    )
  if (field.encrypted && !type.encryptable)
    report(at('encrypted'), `${name}: un campo de tipo ${field.type} no se puede cifrar.`)
  if (field.unique && !type.comparable)
    report(at('unique'), `${name}: un campo de tipo ${field.type} no puede ser único.`)
  if (field.index && !type.comparable)
    report(at('index'), `${name}: un campo de tipo ${field.type} no se puede indexar.`)
  if (field.searchable && !type.searchable)
    report(
      at('searchable'),
      `${name}: solo los campos de tipo ${typesWhere((d) => d.searchable)} admiten búsqueda de texto.`,
    )
  else if (field.searchable && field.encrypted)
    report(at('searchable'), `${name}: un campo cifrado no admite búsqueda de texto (su texto no se indexa).`)
  for (const key of ['minimum', 'maximum'] as const)
    if (field[key] !== undefined && type.bounds !== 'number')
      report(at(key), `${name}: '${key}' solo se admite en campos ${typesWhere((d) => d.bounds === 'number')}.`)
  for (const [key, value] of [
    ['min_length', field.minLength],
    ['max_length', field.maxLength],
    ['pattern', field.pattern],
    ['format', field.format],
  ] as const)
    if (value !== undefined && type.bounds !== 'text')
      report(at(key), `${name}: '${key}' solo se admite en campos ${typesWhere((d) => d.bounds === 'text')}.`)
  if (field.renamedFrom !== undefined && mod.fields.some((f) => f.name === field.renamedFrom))
    report(at('renamed_from'), `${name}: 'renamed_from' nombra un campo que todavía existe (${field.renamedFrom}).`)
  checkRenamedValues(field, name, at('renamed_values'), report)
}

/** `renamed_values: { old: new }`: each new value in the enum, each old one out of it. */
function checkRenamedValues(field: FieldDef, name: string, at: readonly string[], report: Report): void {
  if (field.renamedValues === undefined) return
  if (field.enum === undefined) {
    report(at, `${name}: 'renamed_values' solo se admite en campos con 'enum'.`)
    return
  }
  for (const [from, to] of Object.entries(field.renamedValues)) {
    if (field.enum.includes(from))
      report(
        [...at, from],
        `${name}: 'renamed_values' renombra '${from}', que sigue en el enum: quítelo del enum.`,
        true,
      )
    if (!field.enum.includes(to))
      report(
        [...at, from],
        `${name}: 'renamed_values' renombra '${from}' a '${to}', que no está en el enum.${didYouMean(to, field.enum)}`,
      )
  }
}

/** A field renamed away (`renamed_from`) is still named by its old name somewhere. */
function renamedHint(mod: ModuleDef, name: string): string {
  const renamed = mod.fields.find((f) => f.renamedFrom === name)
  return renamed === undefined ? '' : ` Se renombró a '${renamed.name}'.`
}

/** `indexes:` of a module: known, indexable, distinct fields; two or more; each list declared once. */
function checkIndexes(mod: ModuleDef, report: Report): void {
  const names = mod.fields.map((f) => f.name)
  const declared = new Set<string>()
  mod.indexes.forEach((fields, i) => {
    const at = ['modules', mod.name, 'indexes', i]
    const shown = `[${fields.join(', ')}]`
    if (fields.length < 2)
      report(
        at,
        `${mod.name}: el índice ${shown} necesita al menos dos campos; para indexar un solo campo use 'index: true' en ${fields[0] === undefined ? 'el campo' : `el campo '${fields[0]}'`}.`,
      )
    fields.forEach((name, j) => {
      const field = mod.fields.find((f) => f.name === name)
      if (field === undefined)
        report(
          [...at, j],
          `${mod.name}: el índice ${shown} nombra un campo que no existe: '${name}'.${renamedHint(mod, name) || didYouMean(name, names)}`,
        )
      else if (!declarationOf(field.type).comparable)
        report(
          [...at, j],
          `${mod.name}: el índice ${shown} incluye '${name}', un campo de tipo ${field.type} que no se puede indexar.`,
        )
      if (fields.indexOf(name) !== j) report([...at, j], `${mod.name}: el índice ${shown} repite el campo '${name}'.`)
    })
    const key = fields.join(',')
    if (declared.has(key)) report(at, `${mod.name}: el índice ${shown} está declarado dos veces.`)
    declared.add(key)
  })
}

/** `type: ref` names an existing module in `module`; `module` and `on_delete` belong to ref fields only. */
function checkReference(config: ModulesConfig, mod: ModuleDef, field: FieldDef, report: Report): void {
  const at = (key: string) => ['modules', mod.name, 'fields', field.name, key]
  const name = `${mod.name}.${field.name}`
  if (!declarationOf(field.type).references) {
    if (field.module !== undefined) report(at('module'), `${name}: 'module' solo se admite en campos de tipo ref.`)
    if (field.onDelete !== undefined)
      report(at('on_delete'), `${name}: 'on_delete' solo se admite en campos de tipo ref.`)
    return
  }
  const modules = config.modules.map((m) => m.name)
  if (field.module === undefined)
    report(at('type'), `${name}: un campo de tipo ref necesita 'module' con el módulo al que apunta.`)
  else if (!modules.includes(field.module))
    report(
      at('module'),
      `${name}: 'module' nombra un módulo que no existe: '${field.module}'.${didYouMean(field.module, modules)}`,
    )
}

function checkModules(config: ModulesConfig, report: Report): void {
  const prefixes = new Map<string, string>()
  for (const mod of config.modules) {
    if (RESERVED_PATHS.includes(mod.name) || mod.name === config.service.auditPath)
      report(['modules', mod.name], `El nombre de módulo '${mod.name}' está reservado por el servicio.`, true)
    const other = prefixes.get(mod.prefix)
    if (other !== undefined)
      report(['modules', mod.name, 'prefix'], `El prefijo '${mod.prefix}' ya lo usa el módulo '${other}'.`)
    prefixes.set(mod.prefix, mod.name)
    const states = mod.fields.filter((f) => f.state)
    for (const extra of states.slice(1))
      report(
        ['modules', mod.name, 'fields', extra.name, 'state'],
        `${mod.name}: solo puede haber un campo de estado (ya lo es '${states[0]?.name}').`,
      )
    for (const field of mod.fields) {
      if (RESERVED_FIELDS.includes(field.name))
        report(
          ['modules', mod.name, 'fields', field.name],
          `${mod.name}: el nombre de campo '${field.name}' está reservado para los parámetros de lista.`,
          true,
        )
      checkField(mod, field, report)
      checkReference(config, mod, field, report)
    }
    checkIndexes(mod, report)
  }
}

function checkRoles(config: ModulesConfig, report: Report): void {
  const namespaces = [
    ...config.modules.map((m) => m.name),
    config.service.auditPath,
    RETENTION_NAMESPACE,
    SUBJECTS_NAMESPACE,
  ]
  for (const role of config.roles) {
    role.permissions.forEach((permission, index) => {
      const [moduleName = '', action = ''] = permission.split('.')
      const at = ['roles', role.name, 'permissions', index]
      if (moduleName !== '*' && !namespaces.includes(moduleName))
        report(
          at,
          `Rol ${role.name}: el permiso '${permission}' nombra un módulo que no existe.${didYouMean(moduleName, namespaces)}`,
        )
      else if (moduleName === RETENTION_NAMESPACE) {
        if (action !== '*' && !(RETENTION_ACTIONS as readonly string[]).includes(action))
          report(
            at,
            `Rol ${role.name}: la retención (D41) solo admite las acciones ${RETENTION_ACTIONS.join(', ')}.${didYouMean(action, RETENTION_ACTIONS)}`,
          )
      } else if (action === BLOCKED_ACTION) {
        // D41: reading blocked records means something only where records can be blocked.
        const kept = config.modules.filter((m) => m.retention !== undefined).map((m) => m.name)
        if (moduleName !== '*' && !kept.includes(moduleName))
          report(
            at,
            `Rol ${role.name}: '${permission}' no se aplica: solo un módulo con 'retention:' bloquea registros (D41)` +
              (kept.length === 0 ? '.' : ` (${kept.join(', ')}).`),
          )
      } else if (action !== '*' && !(ACTIONS as readonly string[]).includes(action))
        report(
          at,
          `Rol ${role.name}: acción desconocida '${action}' (acciones: ${[...ACTIONS, BLOCKED_ACTION].join(', ')}).${didYouMean(action, [...ACTIONS, BLOCKED_ACTION])}`,
        )
      else if (moduleName === config.service.auditPath && action !== 'ver' && action !== '*')
        report(at, `Rol ${role.name}: el registro de auditoría solo admite la acción 'ver'.`)
      else if (moduleName === SUBJECTS_NAMESPACE && action !== 'ver' && action !== '*')
        report(at, `Rol ${role.name}: la búsqueda de interesados (D41) solo admite la acción 'ver'.`)
    })
  }
}

function checkAccounts(config: ModulesConfig, report: Report): void {
  const accounts = config.service.accounts
  const mod = config.modules.find((m) => m.name === accounts.module)
  if (mod === undefined) {
    report(
      ['service', 'accounts', 'module'],
      `El módulo de cuentas '${accounts.module}' no existe.${didYouMean(
        accounts.module,
        config.modules.map((m) => m.name),
      )}`,
    )
    return
  }
  const expect = (
    part: 'username' | 'password' | 'role' | 'active',
    type: FieldType,
    extra: (f: FieldDef) => string,
  ) => {
    const field = mod.fields.find((f) => f.name === accounts[part])
    if (field === undefined)
      report(['service', 'accounts', part], `El campo '${accounts[part]}' no existe en el módulo ${mod.name}.`)
    else if (field.type !== type)
      report(['service', 'accounts', part], `El campo '${field.name}' debe ser de tipo ${type}.`)
    else {
      const problem = extra(field)
      if (problem !== '') report(['service', 'accounts', part], problem)
    }
  }
  expect('username', 'string', (f) =>
    f.unique && f.required && !f.encrypted ? '' : `El campo '${f.name}' debe ser obligatorio, único y sin cifrar.`,
  )
  expect('password', 'password', (f) => (f.required ? '' : `El campo '${f.name}' debe ser obligatorio.`))
  expect('role', 'role', (f) => (f.required ? '' : `El campo '${f.name}' debe ser obligatorio.`))
  expect('active', 'boolean', () => '')
  accounts.profile.forEach((name, index) => {
    const field = mod.fields.find((f) => f.name === name)
    if (field === undefined || declarationOf(field.type).writeOnly)
      report(
        ['service', 'accounts', 'profile', index],
        `El campo de perfil '${name}' no existe en ${mod.name} o no se puede mostrar.`,
      )
  })
}

function checkService(config: ModulesConfig, report: Report): void {
  try {
    new Intl.DateTimeFormat('en', { timeZone: config.service.timezone })
  } catch {
    report(['service', 'timezone'], `Zona horaria desconocida '${config.service.timezone}' (ejemplo: Europe/Madrid).`)
  }
  if (config.service.list.defaultLimit > config.service.list.maxLimit)
    report(['service', 'list', 'default_limit'], 'default_limit no puede ser mayor que max_limit.')
  if (RESERVED_PATHS.includes(config.service.auditPath))
    report(['service', 'audit_path'], `La ruta '${config.service.auditPath}' está reservada por el servicio.`)
}

/** `motivo_requerido:` names roles that exist. */
function checkMotivoRoles(config: ModulesConfig, report: Report): void {
  const roles = config.roles.map((r) => r.name)
  for (const mod of config.modules)
    for (const [action, named] of Object.entries(mod.motivoRequired ?? {}))
      named?.forEach((role, index) => {
        if (!roles.includes(role))
          report(
            ['modules', mod.name, 'motivo_requerido', action, index],
            `${mod.name}: 'motivo_requerido' nombra un rol que no existe: '${role}'.${didYouMean(role, roles)}`,
          )
      })
}

/**
 * Two objects of the database cannot share a name: a module `caso_` with a field `live` would
 * name its index as module `caso`'s index of live rows, and the start would fail at `create
 * index`. PostgreSQL keeps only a name's first 63 bytes, so names are compared as it stores them.
 * SQLite refuses to create a table whose name starts with `sqlite_`.
 */
function checkDatabaseNames(config: ModulesConfig, report: Report): void {
  for (const mod of config.modules)
    if (mod.name.startsWith('sqlite_'))
      report(
        ['modules', mod.name],
        `El nombre de módulo '${mod.name}' no se puede usar: SQLite reserva para sí los nombres que empiezan por 'sqlite_'.`,
        true,
      )
  const taken = new Map<string, DatabaseObject>()
  const keyOf = (object: DatabaseObject) =>
    `${object.trigger === true ? 'trigger' : 'relation'}:${storedName(object.name)}`
  for (const name of Object.values(SYSTEM_INDEXES))
    taken.set(`relation:${name}`, { name, what: `un índice del propio servicio ('${name}')`, at: [] })
  for (const object of config.modules.flatMap(databaseObjectsOf)) {
    const key = keyOf(object)
    const first = taken.get(key)
    if (first === undefined) taken.set(key, object)
    else
      report(
        object.at,
        // At the module's or the field's name; at the entry of a composite index.
        `La base de datos daría el mismo nombre ('${storedName(object.name)}') a dos objetos: ${object.what} y ${first.what}. Cambie el nombre de uno de los dos módulos o campos.`,
        typeof object.at.at(-1) === 'string',
      )
  }
}

/** Every cross-cutting problem of a configuration whose shape is already valid. */
export function checkRules(config: ModulesConfig, source: YamlSource): ConfigProblem[] {
  const problems: ConfigProblem[] = []
  const report: Report = (path, message, atKey = false) => problems.push(source.problem(path, message, atKey))
  checkService(config, report)
  checkModules(config, report)
  checkRoles(config, report)
  checkAccounts(config, report)
  checkAccess(config, report)
  checkWorkflows(config, report)
  checkMotivoRoles(config, report)
  checkRetention(config, report)
  checkFileFields(config, report)
  checkDatabaseNames(config, report)
  return problems.sort((a, b) => a.line - b.line || a.column - b.column)
}
