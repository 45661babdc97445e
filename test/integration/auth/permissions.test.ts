// The permission matrix of D21 (API reference 5.2): each role, module and action, answered over HTTP.
// The expected table is written out from the text of D21, not read from modules.yaml or src/.
import t, { type Test } from 'tap'
import { startTestApi, VALID, type TestApi } from '../../helpers/api.js'
import { assertError } from './envelope.js'

type Action = 'ver' | 'crear' | 'editar' | 'eliminar'
const ACTIONS: readonly Action[] = ['ver', 'crear', 'editar', 'eliminar']
const RECORD_MODULES = [
  'denuncias',
  'sanciones',
  'atestados',
  'personal',
  'vehiculos',
  'sala092',
  'turnos',
  'equipamiento',
] as const
const MODULES = [...RECORD_MODULES, 'usuarios'] as const
const ALL: readonly Action[] = ACTIONS
const CASE_MODULES = ['denuncias', 'sanciones', 'atestados', 'sala092'] as const

type Grants = Readonly<Partial<Record<(typeof MODULES)[number], readonly Action[]>>>
const each = (modules: readonly string[], actions: readonly Action[]) =>
  Object.fromEntries(modules.map((m) => [m, actions]))

/** D21, role by role. */
const EXPECTED: Readonly<Record<string, Grants>> = {
  superadmin: each(MODULES, ALL),
  administrador: each(MODULES, ALL),
  jefe: {
    ...each(CASE_MODULES, ['ver', 'crear', 'editar']),
    ...each(['personal', 'turnos', 'vehiculos', 'equipamiento'], ALL),
  },
  oficial: {
    ...each(CASE_MODULES, ['ver', 'crear', 'editar']),
    ...each(['personal', 'vehiculos', 'turnos', 'equipamiento'], ['ver']),
  },
  agente: {
    denuncias: ['ver', 'crear', 'editar'],
    sanciones: ['ver', 'crear'],
    atestados: ['ver', 'crear'],
    sala092: ['ver', 'crear', 'editar'],
    ...each(['turnos', 'vehiculos', 'equipamiento'], ['ver']),
  },
  consulta: each(RECORD_MODULES, ['ver']),
}

let accounts = 0
/** A valid create body; accounts made by the matrix are consulta, which every holder of usuarios.crear may manage. */
function validBody(module: string): Record<string, unknown> {
  if (module !== 'usuarios') return VALID[module]!()
  accounts += 1
  return {
    username: `matriz_${accounts}`,
    password: 'matriz-password-1',
    nombre: 'Cuenta de la matriz',
    rol: 'consulta',
  }
}
const changeBody = (module: string): Record<string, unknown> => {
  if (module === 'usuarios') return { nombre: 'Cuenta cambiada' }
  const body = VALID[module]!()
  const first = Object.keys(body)[0] as string
  return { [first]: body[first] }
}

async function check(
  t: Test,
  api: TestApi,
  role: string,
  token: string,
  module: string,
  action: Action,
): Promise<void> {
  const allowed = EXPECTED[role]?.[module as keyof Grants]?.includes(action) ?? false
  const label = `${role} ${action} ${module}: ${allowed ? 'allowed' : '403'}`
  // A record of its own for every check that reads, changes or deletes one. Under D26 an agente
  // acts only on the records of their scope: a role that may create makes its own target (in
  // its scope), the others get the administrator's (turnos name the agente's personal_id).
  const creates = EXPECTED[role]?.[module as keyof Grants]?.includes('crear') === true && module !== 'usuarios'
  const target =
    action === 'crear' ? '' : ((await api.create(module, validBody(module), creates ? token : undefined))._id as string)
  const requests: Record<Action, Array<[string, string, unknown]>> = {
    ver: [
      ['GET', `/${module}`, undefined],
      ['GET', `/${module}/${target}`, undefined],
      ['GET', `/${module}/${target}/historial`, undefined],
    ],
    crear: [['POST', `/${module}`, validBody(module)]],
    editar: [['PUT', `/${module}/${target}`, changeBody(module)]],
    eliminar: [['DELETE', `/${module}/${target}`, undefined]],
  }
  const success: Record<Action, number> = { ver: 200, crear: 201, editar: 200, eliminar: 200 }
  for (const [method, path, body] of requests[action]) {
    // The motivo some reads need is given: this matrix is about permissions alone.
    const reply = await api.request(method, path, { token, body, headers: { 'x-motivo': 'Comprobación de permisos' } })
    if (allowed)
      t.equal(
        reply.status,
        success[action],
        `${label} (${method} ${path}) ${reply.status === success[action] ? '' : JSON.stringify(reply.body)}`,
      )
    else assertError(t, reply, 403, 'Sin permisos para esta operación', `${label} (${method} ${path})`)
  }
}

t.test('D21: each role may do exactly what D21 grants it', async (t) => {
  const api = await startTestApi(t)
  for (const role of Object.keys(EXPECTED)) {
    // The personal_id of VALID turnos' agente_id: the agente's turnos are in their scope.
    const { token } = await api.userWithRole(role, { personal_id: 'PER-2026-00001' })
    await t.test(`D21: ${role}`, async (t) => {
      for (const module of MODULES) for (const action of ACTIONS) await check(t, api, role, token, module, action)
    })
  }
})

t.test('D21: permission is checked after the token: no token is 401 even where nobody may act', async (t) => {
  const api = await startTestApi(t)
  const { token } = await api.userWithRole('consulta')
  assertError(t, await api.request('DELETE', '/denuncias/DEN-2026-00001'), 401, 'Token no proporcionado')
  assertError(
    t,
    await api.request('DELETE', '/denuncias/DEN-2026-00001', { token }),
    403,
    'Sin permisos para esta operación',
    'consulta delete on a missing record',
  )
})
