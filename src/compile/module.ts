// One module definition in, its compiled spec out: fields, table, schemas, permissions, routes.
import type { ModuleAction, FieldDef, ModuleDef } from '../config/types.js'
import { compileAccess, compileWorkflow } from './access.js'
import { fieldNotes, withFieldNotes } from './access-notes.js'
import { ENCRYPTED_OPERATORS, FIELD_TYPES, type SchemaContext } from './field-types.js'
import { blindIndexColumnOf } from './metadata.js'
import { modulePermissions } from './permissions.js'
import { compileSchemas } from './schemas.js'
import { compileRetention } from './retention.js'
import { compileTable } from './table.js'
import type { DefaultSpec, FieldSpec, ModuleSpec, RouteSpec } from './types.js'

export function compileField(def: FieldDef, context: SchemaContext): FieldSpec {
  const entry = FIELD_TYPES[def.type]
  return {
    def,
    name: def.name,
    column: def.name,
    storage: def.encrypted ? 'text' : entry.storage,
    encrypted: def.encrypted,
    blindIndexColumn: def.encrypted ? blindIndexColumnOf(def.name) : undefined,
    writeOnly: entry.declaration.writeOnly,
    ...(entry.declaration.uploaded === true ? { uploaded: true as const } : {}),
    parseFilter: entry.parseFilter,
    operators: def.encrypted ? entry.operators.filter((op) => ENCRYPTED_OPERATORS.includes(op)) : entry.operators,
    sortable: entry.sortable && !def.encrypted,
    valueSchema: entry.valueSchema(def, context),
    label: entry.label,
  }
}

function compileDefaults(def: ModuleDef): DefaultSpec[] {
  return def.fields.flatMap((field): DefaultSpec[] => {
    if (field.default === '$now')
      return [{ field: field.name, value: { now: FIELD_TYPES[field.type].now ?? 'datetime' } }]
    if (field.default !== undefined) return [{ field: field.name, value: { literal: field.default } }]
    // The state field starts at the first state of its list (D6).
    if (field.state && field.enum?.[0] !== undefined) return [{ field: field.name, value: { literal: field.enum[0] } }]
    return []
  })
}

function compileRoutes(permissions: Readonly<Record<ModuleAction, string>>): RouteSpec[] {
  return [
    { operation: 'list', method: 'GET', url: '/', permission: permissions.ver },
    { operation: 'get', method: 'GET', url: '/:id', permission: permissions.ver },
    { operation: 'history', method: 'GET', url: '/:id/historial', permission: permissions.ver },
    { operation: 'create', method: 'POST', url: '/', permission: permissions.crear },
    { operation: 'update', method: 'PUT', url: '/:id', permission: permissions.editar },
    { operation: 'remove', method: 'DELETE', url: '/:id', permission: permissions.eliminar },
  ]
}

/** Pure: a module definition and the role names in, everything the engine needs out. */
export function compileModule(def: ModuleDef, context: SchemaContext): ModuleSpec {
  const fields = def.fields.map((f) => compileField(f, context))
  const permissions = modulePermissions(def.name)
  const fieldsByName = new Map(fields.map((f) => [f.name, f]))
  const access = compileAccess(def, fieldsByName)
  const workflow = compileWorkflow(def)
  const schemas = compileSchemas(fields, def.prefix)
  const notes = fieldNotes(access, workflow)
  return {
    def,
    name: def.name,
    prefix: def.prefix,
    fields,
    fieldsByName,
    encryptedFields: fields.filter((f) => f.encrypted),
    requiredFields: def.fields.filter((f) => f.required).map((f) => f.name),
    stateField: def.fields.find((f) => f.state)?.name,
    defaults: compileDefaults(def),
    table: compileTable(def.name, fields, def.indexes),
    // The access rules noted on the fields of the schemas that validate and document requests.
    schemas: {
      ...schemas,
      create: withFieldNotes(schemas.create, notes),
      update: withFieldNotes(schemas.update, notes),
      record: withFieldNotes(schemas.record, notes),
    },
    permissions,
    routes: compileRoutes(permissions),
    access,
    workflow,
    references: fields.flatMap((f) =>
      FIELD_TYPES[f.def.type].declaration.references && f.def.module !== undefined
        ? [{ field: f.name, column: f.column, module: f.def.module, onDelete: f.def.onDelete ?? 'restrict' }]
        : [],
    ),
    retention: def.retention === undefined ? undefined : compileRetention(def, def.retention),
  }
}
