// Permission names {module}.{action} (API reference 5.2), the role grants of D21 and who covers whom.
import t from 'tap'
import { ACTIONS, BLOCKED_ACTION } from '../../../src/config/types.js'
import { compileRole, roleCovers, type Namespace } from '../../../src/compile/permissions.js'
import type { RoleSpec } from '../../../src/compile/types.js'
import { shippedService } from '../support/config.js'

const service = shippedService()
const RECORD_MODULES = [
  'denuncias',
  'sanciones',
  'atestados',
  'personal',
  'vehiculos',
  'sala092',
  'turnos',
  'equipamiento',
]
const ALL_MODULES = [...RECORD_MODULES, 'usuarios']
const CASE_MODULES = ['denuncias', 'sanciones', 'atestados', 'sala092']

const role = (name: string): RoleSpec => {
  const spec = service.roles.get(name)
  if (spec === undefined) throw new Error(`no role ${name}`)
  return spec
}
const granted = (name: string): string[] => [...role(name).granted].sort()
const each = (modules: readonly string[], actions: readonly string[]): string[] =>
  modules.flatMap((m) => actions.map((a) => `${m}.${a}`))
const sorted = (list: readonly string[]): string[] => [...list].sort()

t.test(
  'D15, API reference 5.2, D41: every module has the five permissions {module}.{action}, and bloqueados',
  async (t) => {
    t.same(ACTIONS, ['ver', 'crear', 'editar', 'eliminar', 'descifrar'])
    for (const spec of service.modules) {
      t.strictSame(
        spec.permissions,
        {
          ver: `${spec.name}.ver`,
          crear: `${spec.name}.crear`,
          editar: `${spec.name}.editar`,
          eliminar: `${spec.name}.eliminar`,
          descifrar: `${spec.name}.descifrar`,
          bloqueados: `${spec.name}.bloqueados`,
        },
        spec.name,
      )
    }
  },
)

t.test('D25: the audit trail has one permission, auditoria.ver', async (t) => {
  t.strictSame(service.audit, { path: 'auditoria', permission: 'auditoria.ver' })
})

t.test('D41: the retention queue has two permissions, retencion.ver and retencion.decidir', async (t) => {
  t.strictSame(service.retention, {
    path: 'retencion',
    permissions: { ver: 'retencion.ver', decidir: 'retencion.decidir' },
  })
})

t.test(
  'D21, D41: superadmin (*.*) holds every action on every module, the audit trail, retention and interesados',
  async (t) => {
    t.same(
      granted('superadmin'),
      sorted([...each(ALL_MODULES, ACTIONS), 'auditoria.ver', 'retencion.ver', 'retencion.decidir', 'interesados.ver']),
    )
  },
)

t.test('D41: dpd holds retention, interesados and the audit trail, and no record module', async (t) => {
  t.same(granted('dpd'), ['auditoria.ver', 'interesados.ver', 'retencion.decidir', 'retencion.ver'])
})

t.test('D21, D41: administrador covers dpd (may manage its accounts); dpd covers no other role', async (t) => {
  t.ok(roleCovers(role('administrador'), role('dpd')))
  for (const other of ['administrador', 'jefe', 'oficial', 'agente', 'consulta'])
    t.notOk(roleCovers(role('dpd'), role(other)), other)
})

t.test('D21: administrador holds every concrete permission a superadmin holds', async (t) => {
  t.same(granted('administrador'), granted('superadmin'))
})

t.test(
  'D21: jefe: ver and descifrar on the eight record modules, all of personal/turnos/vehiculos/equipamiento, crear and editar on the case modules',
  async (t) => {
    t.same(
      granted('jefe'),
      sorted([
        ...each(CASE_MODULES, ['ver', 'descifrar', 'crear', 'editar']),
        ...each(['personal', 'turnos', 'vehiculos', 'equipamiento'], ACTIONS),
      ]),
    )
    t.notOk(role('jefe').granted.has('denuncias.eliminar'))
    t.notOk([...role('jefe').granted].some((p) => p.startsWith('usuarios.') || p.startsWith('auditoria.')))
  },
)

t.test(
  'D21: oficial: ver, crear, editar, descifrar on the case modules; ver on personal, vehiculos, turnos, equipamiento',
  async (t) => {
    t.same(
      granted('oficial'),
      sorted([
        ...each(CASE_MODULES, ['ver', 'crear', 'editar', 'descifrar']),
        ...each(['personal', 'vehiculos', 'turnos', 'equipamiento'], ['ver']),
      ]),
    )
  },
)

t.test(
  'D21: agente: ver, crear, descifrar on the case modules; editar on denuncias and sala092; ver on turnos, vehiculos, equipamiento',
  async (t) => {
    t.same(
      granted('agente'),
      sorted([
        ...each(CASE_MODULES, ['ver', 'crear', 'descifrar']),
        'denuncias.editar',
        'sala092.editar',
        ...each(['turnos', 'vehiculos', 'equipamiento'], ['ver']),
      ]),
    )
    t.notOk(role('agente').granted.has('personal.ver'), 'agente does not see personal')
  },
)

t.test('D21: consulta: ver on the eight record modules only; no descifrar, nothing on usuarios', async (t) => {
  t.same(granted('consulta'), sorted(each(RECORD_MODULES, ['ver'])))
  t.notOk([...role('consulta').granted].some((p) => p.endsWith('.descifrar')))
  t.notOk([...role('consulta').granted].some((p) => p.startsWith('usuarios.')))
})

t.test('D21: administrador does not cover superadmin, though superadmin covers administrador', async (t) => {
  t.equal(roleCovers(role('administrador'), role('superadmin')), false)
  t.equal(roleCovers(role('superadmin'), role('administrador')), true)
})

t.test('D21: every role covers itself; superadmin covers every role', async (t) => {
  for (const name of service.roles.keys()) {
    t.equal(roleCovers(role(name), role(name)), true, `${name} covers ${name}`)
    t.equal(roleCovers(role('superadmin'), role(name)), true, `superadmin covers ${name}`)
  }
})

t.test('D21: administrador covers every role below it; none of those covers administrador', async (t) => {
  for (const name of ['jefe', 'oficial', 'agente', 'consulta']) {
    t.equal(roleCovers(role('administrador'), role(name)), true, `administrador covers ${name}`)
    t.equal(roleCovers(role(name), role('administrador')), false, `${name} does not cover administrador`)
  }
})

t.test('D21: the chain jefe > oficial > agente holds one way only', async (t) => {
  t.equal(roleCovers(role('jefe'), role('oficial')), true)
  t.equal(roleCovers(role('oficial'), role('jefe')), false)
  t.equal(roleCovers(role('oficial'), role('agente')), true)
  t.equal(roleCovers(role('agente'), role('oficial')), false)
})

t.test('D21: agente and consulta do not cover each other (personal.ver vs editar/crear/descifrar)', async (t) => {
  t.equal(roleCovers(role('agente'), role('consulta')), false)
  t.equal(roleCovers(role('consulta'), role('agente')), false)
})

t.test(
  'wildcards: {module}.* covers its actions, a single action never covers {module}.*, only *.* covers *.*',
  async (t) => {
    const namespaces: Namespace[] = [
      { name: 'notas', actions: ACTIONS },
      { name: 'otras', actions: ACTIONS },
    ]
    const make = (name: string, permissions: string[]) => compileRole({ name, permissions }, namespaces)
    const all = make('all', ['*.*'])
    const notasAll = make('notasAll', ['notas.*'])
    const everyModule = make('everyModule', ['notas.*', 'otras.*'])
    const notasVer = make('notasVer', ['notas.ver'])
    const everyAction = make(
      'everyAction',
      ACTIONS.map((a) => `notas.${a}`),
    )
    t.equal(roleCovers(notasAll, notasVer), true)
    t.equal(roleCovers(notasVer, notasAll), false)
    t.equal(roleCovers(everyAction, notasAll), false, 'wildcards are compared as written')
    t.equal(roleCovers(notasAll, everyAction), true)
    t.equal(roleCovers(everyModule, all), false)
    t.equal(roleCovers(all, everyModule), true)
    t.equal(roleCovers(make('none', []), make('none2', [])), true, 'an empty role is covered by anyone')
  },
)

t.test('wildcards expand only to the actions a namespace offers', async (t) => {
  const namespaces: Namespace[] = [
    { name: 'notas', actions: ACTIONS },
    { name: 'auditoria', actions: ['ver'] },
  ]
  t.same([...compileRole({ name: 'r', permissions: ['auditoria.*'] }, namespaces).granted], ['auditoria.ver'])
  t.same([...compileRole({ name: 'r', permissions: ['*.descifrar'] }, namespaces).granted], ['notas.descifrar'])
  t.same([...compileRole({ name: 'r', permissions: ['*.ver'] }, namespaces).granted].sort(), [
    'auditoria.ver',
    'notas.ver',
  ])
})

t.test('D41: bloqueados is granted only where named, for modules with retention:, never by a * action', async (t) => {
  const namespaces: Namespace[] = [
    { name: 'notas', actions: ACTIONS, namedOnly: [BLOCKED_ACTION] },
    { name: 'otras', actions: ACTIONS },
  ]
  const grants = (permissions: string[]) => [...compileRole({ name: 'r', permissions }, namespaces).granted].sort()
  t.notOk(grants(['*.*']).includes('notas.bloqueados'), '*.* does not grant it')
  t.notOk(grants(['notas.*']).includes('notas.bloqueados'), '{module}.* does not grant it')
  t.same(grants(['notas.bloqueados']), ['notas.bloqueados'])
  t.same(grants(['*.bloqueados']), ['notas.bloqueados'], 'only the modules that keep records under retention:')
  t.same(grants(['otras.bloqueados']), [], 'a module without retention: has none to grant')
  // The shipped roles: nobody reads blocked records until a role names the permission.
  for (const name of service.roles.keys())
    t.notOk(
      [...role(name).granted].some((p) => p.endsWith('.bloqueados')),
      `${name} holds no {module}.bloqueados`,
    )
})

t.test('D41: a role that reads blocked records is covered only by one naming it, or by *.*', async (t) => {
  const namespaces: Namespace[] = [{ name: 'notas', actions: ACTIONS, namedOnly: [BLOCKED_ACTION] }]
  const make = (name: string, permissions: string[]) => compileRole({ name, permissions }, namespaces)
  const custodian = make('custodio', ['notas.ver', 'notas.bloqueados'])
  t.equal(roleCovers(make('notasAll', ['notas.*']), custodian), false, '{module}.* does not cover it')
  t.equal(roleCovers(make('named', ['notas.*', 'notas.bloqueados']), custodian), true)
  t.equal(roleCovers(make('everywhere', ['notas.ver', '*.bloqueados']), custodian), true)
  t.equal(roleCovers(make('all', ['*.*']), custodian), true, 'the superadmin may give it')
  t.equal(roleCovers(custodian, make('notasAll', ['notas.*'])), false)
})
