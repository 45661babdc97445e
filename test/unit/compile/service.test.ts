// The whole of modules.yaml compiled: modules, routes and the accounts module (D2, D3, D22).
import t from 'tap'
import { compileService } from '../../../src/compile/service.js'
import { configFrom, moduleOf, shippedConfig, shippedService } from '../support/config.js'
import { readFileSync } from 'node:fs'

const service = shippedService()

t.test('D2: nine modules with their path segments and prefixes, in file order', async (t) => {
  t.same(
    service.modules.map((m) => [m.name, m.prefix]),
    [
      ['denuncias', 'DEN'],
      ['sanciones', 'SAN'],
      ['atestados', 'ATE'],
      ['personal', 'PER'],
      ['vehiculos', 'VEH'],
      ['sala092', '092'],
      ['turnos', 'TUR'],
      ['equipamiento', 'EQU'],
      ['usuarios', 'USR'],
    ],
  )
  t.same(
    [...service.moduleByName.keys()],
    service.modules.map((m) => m.name),
  )
})

t.test(
  'API reference 4, D25: every module serves list, get, history, create, update and remove with its permission',
  async (t) => {
    t.strictSame(moduleOf(service, 'vehiculos').routes, [
      { operation: 'list', method: 'GET', url: '/', permission: 'vehiculos.ver' },
      { operation: 'get', method: 'GET', url: '/:id', permission: 'vehiculos.ver' },
      { operation: 'history', method: 'GET', url: '/:id/historial', permission: 'vehiculos.ver' },
      { operation: 'create', method: 'POST', url: '/', permission: 'vehiculos.crear' },
      { operation: 'update', method: 'PUT', url: '/:id', permission: 'vehiculos.editar' },
      { operation: 'remove', method: 'DELETE', url: '/:id', permission: 'vehiculos.eliminar' },
    ])
  },
)

t.test('D22: the accounts module is usuarios with its field roles', async (t) => {
  const { spec, ...accounts } = service.accounts
  t.equal(spec, moduleOf(service, 'usuarios'))
  t.strictSame(accounts, {
    module: 'usuarios',
    username: 'username',
    password: 'password',
    role: 'rol',
    active: 'activo',
    profile: ['username', 'nombre', 'rol', 'email'],
    userFields: ['personal_id'],
  })
})

t.test('D21, D41: the six roles and dpd are compiled in file order', async (t) => {
  t.same([...service.roles.keys()], ['superadmin', 'administrador', 'jefe', 'oficial', 'agente', 'consulta', 'dpd'])
})

t.test('compiling is pure: the same configuration compiles to the same spec twice', async (t) => {
  const config = shippedConfig()
  t.same(
    compileService(config).modules.map((m) => m.table),
    compileService(config).modules.map((m) => m.table),
  )
})

t.test('a tenth module compiles with its five permissions and a table of its own', async (t) => {
  const tenth = compileService(
    configFrom(readFileSync(new URL('../../fixtures/modules/valid/tenth-module.yaml', import.meta.url), 'utf8')),
  )
  t.equal(tenth.modules.length, 10)
  const spec = moduleOf(tenth, 'objetos_perdidos')
  t.equal(spec.permissions.descifrar, 'objetos_perdidos.descifrar')
  t.equal(spec.table.name, 'objetos_perdidos')
  t.same(spec.defaults, [
    { field: 'fecha_hallazgo', value: { now: 'date' } },
    { field: 'estado', value: { literal: 'custodia' } },
  ])
  t.ok(tenth.roles.get('superadmin')?.granted.has('objetos_perdidos.eliminar'), '*.* reaches the new module')
  t.notOk(tenth.roles.get('administrador')?.granted.has('objetos_perdidos.ver'), 'an explicit list does not')
})
