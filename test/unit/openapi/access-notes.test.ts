// The OpenAPI document tells a consumer the access rules of modules.yaml: per-field
// notes (cannot read, cannot write, defaults, read-only states), the workflow of each state field
// and each module's scoped roles.
import { join } from 'node:path'
import t from 'tap'
import { compileService } from '../../../src/compile/service.js'
import { loadModulesConfig } from '../../../src/config/load.js'
import { buildOpenApiDocument } from '../../../src/openapi/document.js'

const ROOT = new URL('../../../', import.meta.url).pathname
const service = compileService(loadModulesConfig(join(ROOT, 'modules.yaml')))
const doc = buildOpenApiDocument(service, { basePath: '/api', version: '1' }) as any
const property = (schema: string, field: string): string =>
  doc.components.schemas[schema].properties[field].description ?? ''

t.test('each state field documents its workflow', async (t) => {
  t.match(
    property('SancionesRegistro', 'estado'),
    'Workflow: se crea en borrador; borrador → notificada (requiere fecha_notificacion), anulada;',
  )
  t.match(property('SancionesRegistro', 'estado'), 'cobrada (final); anulada (final)')
  t.match(property('DenunciasCambios', 'estado'), 'archivada → investigacion [jefe, administrador, superadmin]')
  for (const [schema, field] of [
    ['PersonalRegistro', 'situacion'],
    ['VehiculosRegistro', 'estado'],
    ['Sala092Registro', 'estado'],
    ['TurnosRegistro', 'estado'],
    ['EquipamientoRegistro', 'estado'],
  ])
    t.match(property(schema!, field!), 'Workflow:', `${schema}.${field}`)
})

t.test('per-field rules are noted on the fields', async (t) => {
  t.match(property('DenunciasRegistro', 'observaciones'), 'El rol consulta no lo lee')
  t.match(property('DenunciasAlta', 'agente_asignado'), 'El rol agente no lo escribe (403).')
  t.match(
    property('DenunciasAlta', 'agente_asignado'),
    'Para el rol agente, al crear sin valor toma el personal_id del usuario.',
  )
  t.match(property('SancionesCambios', 'importe'), 'De solo lectura en los estados firme, cobrada, anulada (409).')
})

t.test('the operations of a scoped module name its scoped roles', async (t) => {
  t.match(
    doc.paths['/denuncias'].get.description,
    '- agente: (`agente_asignado` = el personal_id del usuario o `_created_by` = el id del usuario)',
  )
  t.match(doc.paths['/denuncias/{id}'].put.description, 'Ámbito de registros por rol')
  t.notMatch(doc.paths['/vehiculos'].get.description, 'Ámbito', 'a module without scopes says nothing of them')
})
